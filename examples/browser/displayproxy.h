// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_EXAMPLE_DISPLAYPROXY_H
#define QVFS_EXAMPLE_DISPLAYPROXY_H

#include <QHash>
#include <QIcon>
#include <QIdentityProxyModel>

/*!
 * What the views show that DirModel leaves to the application (the model knows no
 * widgets and no wording of its own): file-type icons from the icon theme, with the
 * type's generic icon and then the style's file and folder icons as fallbacks, and the
 * Size column in words: "1 byte", "2 bytes", "1.5 KiB" for files, "3 items" for folders
 * (DirModel::ChildCountRole, counted lazily for the rows a view shows).
 */
class DisplayProxy : public QIdentityProxyModel
{
    Q_OBJECT
public:
    using QIdentityProxyModel::QIdentityProxyModel;

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    /*! \a bytes as a size for people: "1 byte", "512 bytes", "1.5 KiB", "2.0 GiB". */
    static QString sizeText(qint64 bytes);

private:
    QIcon icon(const QModelIndex &index) const;
    QString sizeColumnText(const QModelIndex &index) const;

    mutable QHash<QString, QIcon> m_icons; // by icon name: looked up once per type
};

#endif
