// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_DIRMODEL_H
#define QVFS_DIRMODEL_H

#include "qvfsmodels_export.h"

#include <Qvfs/Entry>

#include <QAbstractItemModel>
#include <QList>
#include <QUrl>

#include <memory>

QT_BEGIN_NAMESPACE
class QMimeData;
QT_END_NAMESPACE

namespace Qvfs
{

class DirLister;
class DirModelPrivate;
class Job;

/*!
 * A live folder as a Qt item model, flat (a list view) or as a tree (folders expand on
 * demand, fetchMore()), fed by a DirLister: rows stay true while files change, and are
 * sorted from the first batch on (by name in natural order, size, time or type; folders
 * first by default).
 *
 * Rows are the listing's Entry handles in sorted order — 16 bytes a row beside the
 * lister's cache — so index(), parent() and rowCount() are O(1) and a folder's row is
 * found by binary search. Arriving entries are sorted and merged in bounded slices;
 * changes become one rowsInserted / rowsRemoved / dataChanged per contiguous range, or
 * one layoutChanged when they are scattered (persistent indexes follow: a renamed file
 * keeps its selection). Nothing touches the filesystem in data(), hasChildren() or
 * rowCount(): the MIME type is judged by the name, and only a row a view asks about
 * whose name says nothing is looked into, later, by its worker.
 *
 * Text comes from the name's bytes (decoded as UTF-8 for display only); EntryRole gives
 * the Entry, NameBytesRole the exact name, UrlRole the URL. Editing the name starts a
 * rename job; the row follows when the change arrives.
 *
 * Drag and drop and the clipboard: mimeData() gives the rows' URLs as text/uri-list and
 * as application/x-qvfs-urls (the URLs' exact encoded bytes, names that are not UTF-8
 * included); a drop on a folder row, or between rows, copies or moves what was dropped
 * into that folder with a CopyJob (jobStarted()).
 * \since 0.1
 */
class QVFSMODELS_EXPORT DirModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn = 0,
        SizeColumn,
        ModifiedColumn,
        TypeColumn,
        ColumnCount,
    };
    enum Role {
        EntryRole = Qt::UserRole + 1, //!< the row's Qvfs::Entry
        UrlRole, //!< QUrl of the entry
        NameBytesRole, //!< QByteArray: the name's exact bytes
        IsDirRole, //!< bool
        MimeTypeRole, //!< QString: judged by the name (then by content, for names that say nothing)
        IconNameRole, //!< QString: a freedesktop icon name for the MIME type
        SizeRole, //!< qint64: bytes (-1 for folders)
        ModifiedRole, //!< QDateTime
        /*!
         * int, folders only: the entries in the folder that pass the lister's filters;
         * -1 while not known. Known for a folder expanded in the tree; otherwise asked
         * for, a local folder is counted by a listing of names, later (a dataChanged()
         * follows), and again when it changed. Remote folders say -1 until expanded.
         */
        ChildCountRole,
    };

    explicit DirModel(QObject *parent = nullptr);
    ~DirModel() override;

    /*! The lister behind the model: set filters, details and polling there. */
    DirLister *dirLister() const;
    /*! Shows the folder \a url (the rows of another one go). */
    void setUrl(const QUrl &url);
    QUrl url() const;
    /*! Folders can be expanded (a tree); set before setUrl(). Default: false (a list). */
    void setTreeMode(bool tree);
    bool treeMode() const;
    /*! Folders before files, whatever the sort (default true). */
    void setFoldersFirst(bool first);
    bool foldersFirst() const;
    int sortColumn() const;
    Qt::SortOrder sortOrder() const;

    /*! The row of \a url (shown in this model), or an invalid index. */
    QModelIndex indexForUrl(const QUrl &url) const;
    QUrl urlForIndex(const QModelIndex &index) const;
    Entry entryForIndex(const QModelIndex &index) const;
    /*! Tree mode: forgets the rows under the folder \a index and stops watching it. */
    void closeFolder(const QModelIndex &index);
    /*! Whether the folder \a url (default: the root) is listed and every entry is in its rows. */
    bool isLoaded(const QUrl &url = QUrl()) const;
    /*!
     * Tree mode: opens the folders from the root down to \a url (which is below the root),
     * listing each as needed, and emits expand() for each folder on the way, \a url too
     * when it is a folder, as soon as its row is there: a view expands them (and selects
     * \a url). Asynchronous; a path that turns out not to exist ends the walk there.
     */
    void expandToUrl(const QUrl &url);

    /*! The URLs \a data carries: application/x-qvfs-urls, else text/uri-list. */
    static QList<QUrl> urlsFromMimeData(const QMimeData *data);
    /*! Puts \a urls into \a data as mimeData() does (for a clipboard of URLs). */
    static void setUrlsOnMimeData(QMimeData *data, const QList<QUrl> &urls);

    // QAbstractItemModel
    QModelIndex index(int row, int column, const QModelIndex &parent = QModelIndex()) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    QModelIndex sibling(int row, int column, const QModelIndex &index) const override;
    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    bool hasChildren(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    void multiData(const QModelIndex &index, QModelRoleDataSpan roleDataSpan) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    QHash<int, QByteArray> roleNames() const override;
    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QModelIndexList &indexes) const override;
    bool canDropMimeData(
        const QMimeData *data, Qt::DropAction action, int row, int column, const QModelIndex &parent) const override;
    bool dropMimeData(
        const QMimeData *data, Qt::DropAction action, int row, int column, const QModelIndex &parent) override;
    Qt::DropActions supportedDropActions() const override;
    Qt::DropActions supportedDragActions() const override;

Q_SIGNALS:
    /*! expandToUrl(): the folder \a index is there, to be expanded. */
    void expand(const QModelIndex &index);
    /*!
     * The model started \a job for the application: a rename (setData()), a copy or a
     * move (dropMimeData()). Emitted before the job runs: set its conflict policy or
     * delegate, show its progress.
     */
    void jobStarted(Qvfs::Job *job);
    /*! The folder \a url is listed and all its entries are rows. */
    void loaded(const QUrl &url);
    /*! The folder \a url was deleted (its rows are gone). */
    void folderGone(const QUrl &url);
    /*! The root folder was renamed: it is shown from \a url now. */
    void urlChanged(const QUrl &url);
    /*! The folder \a url could not be listed. */
    void failed(const QUrl &url, int error, const QString &text);

private:
    friend class DirModelPrivate;
    std::unique_ptr<DirModelPrivate> d;
};

} // namespace Qvfs

#endif
