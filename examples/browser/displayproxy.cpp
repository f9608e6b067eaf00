// SPDX-License-Identifier: LGPL-2.1-or-later
#include "displayproxy.h"

#include <Qvfs/DirModel>

#include <QApplication>
#include <QLocale>
#include <QMimeDatabase>
#include <QStyle>

using Qvfs::DirModel;

QVariant DisplayProxy::data(const QModelIndex &index, int role) const
{
    if (role == Qt::DecorationRole && index.column() == DirModel::NameColumn)
        return icon(index);
    if (role == Qt::DisplayRole && index.column() == DirModel::SizeColumn)
        return sizeColumnText(index);
    return QIdentityProxyModel::data(index, role);
}

QString DisplayProxy::sizeText(qint64 bytes)
{
    // Below a KiB the unit is a word with a plural ("1 byte"), which only tr() knows.
    if (bytes < 1024)
        return tr("%n byte(s)", nullptr, int(bytes));
    return QLocale().formattedDataSize(bytes, 1);
}

QIcon DisplayProxy::icon(const QModelIndex &index) const
{
    const QString name = QIdentityProxyModel::data(index, DirModel::IconNameRole).toString();
    const auto known = m_icons.constFind(name);
    if (known != m_icons.cend())
        return *known;
    QIcon icon = QIcon::fromTheme(name);
    if (icon.isNull()) {
        // Themes draw few types of their own: "text-x-generic" stands for "text-x-csrc".
        const QString type = QIdentityProxyModel::data(index, DirModel::MimeTypeRole).toString();
        icon = QIcon::fromTheme(QMimeDatabase().mimeTypeForName(type).genericIconName());
    }
    if (icon.isNull()) {
        // No theme at all: the style's own file and folder.
        const bool dir = QIdentityProxyModel::data(index, DirModel::IsDirRole).toBool();
        icon = QApplication::style()->standardIcon(dir ? QStyle::SP_DirIcon : QStyle::SP_FileIcon);
    }
    m_icons.insert(name, icon);
    return icon;
}

QString DisplayProxy::sizeColumnText(const QModelIndex &index) const
{
    if (!QIdentityProxyModel::data(index, DirModel::IsDirRole).toBool()) {
        const QVariant size = QIdentityProxyModel::data(index, DirModel::SizeRole);
        return size.toLongLong() >= 0 ? sizeText(size.toLongLong()) : QString();
    }
    // A folder's size is what is in it; -1: not counted yet (a dataChanged() follows).
    const int count = QIdentityProxyModel::data(index, DirModel::ChildCountRole).toInt();
    return count >= 0 ? tr("%Ln item(s)", nullptr, count) : QString();
}
