// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_DIRMODEL_P_H
#define QVFS_DIRMODEL_P_H

// DirModel's insides: the tree of folders shown (Node) and DirModelPrivate, whose work is
// split by job over dirmodel_rows.cpp (nodes, merging what the lister sends, removals and
// changes), dirmodel_sort.cpp (re-sorting, in a pool thread for large folders; the keys
// are dirmodelsort.cpp's), dirmodel_mime.cpp (MIME types, and content sniffing for names
// that say nothing) and dirmodel.cpp (the public model).

#include "dirmodel.h"
#include "dirmodelsort_p.h"

#include <Qvfs/DirLister>
#include <Qvfs/Entry>

#include <QElapsedTimer>
#include <QHash>
#include <QModelIndex>
#include <QSet>
#include <QTimer>
#include <QUrl>

#include <functional>
#include <vector>

namespace Qvfs
{

namespace Internal
{
constexpr int SliceMs = 6; // one merge step keeps the thread this long at most
constexpr int LoadingIntervalMs = 100; // merges while a folder is listed, after its first rows
constexpr int MaxRuns = 16; // more separate ranges than this: one layoutChanged
constexpr qsizetype SyncSortRows = 20000; // larger folders are re-sorted in a pool thread
constexpr int MaxSniffJobs = 4;
constexpr int MaxCountJobs = 2;
constexpr qsizetype MaxChunk = 4096; // entries merged in one step at most (a step costs k log k + n)
} // namespace Internal

using Internal::compareKeys;
using Internal::Key;
using Internal::keyOf;
using Internal::SortSpec;
using Internal::TypeComments;

/*! One folder shown: its rows in sorted order. */
struct Node
{
    Node *parent = nullptr;
    QUrl url; // normalized
    QByteArray name; // in the parent
    Entry self; // its row in the parent
    QList<Entry> rows; // sorted by spec
    QList<EntryList> pending; // arrived, not merged yet (whole batches; the first from pendingOffset)
    qsizetype pendingOffset = 0;
    qsizetype pendingCount = 0;
    QHash<QByteArray, Node *> children; // folders expanded (tree mode)
    /*! Content sniffing of a row's MIME type (for names that say nothing), by name. */
    struct Sniff
    {
        QString mime; // what the content said (empty: nothing, or not known yet)
        qint64 size = -1; // of the content it said it of: another content is sniffed again
        qint64 mtime = 0;
        qint64 mtimeNs = 0;
        bool queued = false;
        bool done = false;
        bool sameContent(const Entry &e) const
        {
            return size == e.size() && mtime == e.number(MTime, 0) && mtimeNs == e.number(MTimeNs, 0);
        }
    };
    mutable QHash<QByteArray, Sniff> sniffs;
    /*! How many entries a folder row holds (ChildCountRole), counted by a listing; by name. */
    struct Count
    {
        int count = -1;
        qint64 mtime = 0; // of the folder when counted: another one is counted again
        qint64 mtimeNs = 0;
        bool queued = false;
    };
    mutable QHash<QByteArray, Count> counts;
    SortSpec spec;
    quint64 id = 0;
    quint64 generation = 0; // bumped with every change of rows
    mutable int rowHint = 0;
    bool everMerged = false;
    bool complete = false;
    bool loadedSent = false;
    bool sorting = false; // a re-sort runs in the pool
};

class DirModelPrivate
{
public:
    explicit DirModelPrivate(DirModel *q)
        : q(q)
        , lister(new DirLister(q))
    { }

    DirModel *q;
    DirLister *lister;
    Node *root = nullptr;
    QHash<QUrl, Node *> nodes; // open folders by normalized URL
    QHash<quint64, Node *> nodeIds;
    quint64 nextId = 1;
    SortSpec spec;
    bool tree = false;
    mutable TypeComments types;
    QTimer processTimer;
    QSet<Node *> dirty; // nodes with pending entries
    qint64 lastProcessMs = -1000000;
    qsizetype chunk = 2048;
    QElapsedTimer clock;
    // content sniffing of MIME types, for rows a view asked about
    mutable QList<std::pair<QUrl, QByteArray>> sniffQueue;
    mutable QTimer sniffTimer;
    int sniffRunning = 0;
    // item counts of folder rows (ChildCountRole), for rows a view asked about
    mutable QList<std::pair<QUrl, QByteArray>> countQueue;
    mutable QTimer countTimer;
    int countRunning = 0;
    // expandToUrl(): the folders to open on the way, and how far expand() was said
    struct ExpandWalk
    {
        QList<QUrl> chain; // below the root, down to the target
        int said = 0;
    };
    QList<ExpandWalk> expandWalks;

    /*! \a e's sort key in \a n under \a s (by type: with what its content said). */
    Key key(const Node *n, const Entry &e, const SortSpec &s) const
    {
        if (s.column != DirModel::TypeColumn || n->sniffs.isEmpty())
            return keyOf(e, s, types);
        return keyOf(e, s, types, n->sniffs.value(e.name().toByteArray()).mime);
    }

    Node *newNode(Node *parent, const QUrl &url);
    void deleteTree(Node *n, bool closeLister);
    Node *nodeOf(const QModelIndex &index) const
    {
        return index.isValid() ? static_cast<Node *>(index.internalPointer()) : root;
    }
    /*! The node of the folder shown by the row \a index (tree mode), if expanded. */
    Node *childNode(const QModelIndex &index) const
    {
        if (!index.isValid())
            return root;
        const Node *n = nodeOf(index);
        if (!n || index.row() < 0 || index.row() >= n->rows.size())
            return nullptr;
        return n->children.value(n->rows.at(index.row()).name().toByteArray());
    }
    int rowOf(const Node *n) const;
    QModelIndex indexOfNode(const Node *n) const
    {
        return n == root || !n->parent ? QModelIndex() : q->createIndex(rowOf(n), 0, n->parent);
    }
    int findRow(const Node *n, const Entry &e) const;
    /*! The first row of \a n in [\a lo, \a hi) (hi -1: the end) not before \a k. */
    int lowerBound(const Node *n, const Key &k, int lo = 0, int hi = -1) const;

    // from the lister
    void added(const QUrl &url, const EntryList &entries);
    void removed(const QUrl &url, const EntryList &entries);
    void changed(const QUrl &url, const EntryList &before, const EntryList &after);
    void renamed(const QUrl &url, const Entry &before, const Entry &after);
    void completed(const QUrl &url);
    void gone(const QUrl &url);
    void redirected(const QUrl &from, const QUrl &to);
    void cleared(const QUrl &url);
    /*! Tree mode: the expanded folder \a c goes (its rows, its node, its listing); its row stays. */
    void collapse(Node *c);
    /*! Row \a r of \a n has a new sort key (its entry the same): to its place. */
    void moveRow(Node *n, int r);

    // merging
    void schedule();
    void process();
    void mergeSome(Node *n, qsizetype count);
    void flushPending(Node *n);
    void maybeLoaded(Node *n);
    void changeRows(Node *n, const QList<std::pair<Entry, Entry>> &pairs);
    /*! changeRows() for entries that stay what they are (a folder stays a folder). */
    void changeMoreRows(Node *n, const QList<std::pair<Entry, Entry>> &pairs);
    void removeRows(Node *n, QList<int> rows);
    /*! A layout change of \a n's rows: \a mutate changes them; persistent indexes follow by name. */
    void relayout(Node *n, const std::function<void()> &mutate, const QHash<QByteArray, Entry> &renamedTo = {},
        const QSet<const Node *> &dropped = {});
    void resort(Node *n);
    void applySort(quint64 id, quint64 generation, const SortSpec &s, const std::vector<quint32> &order);

    /*! The MIME type shown for \a e in \a n (entryMimeType()); a name that says nothing is sniffed, later. */
    QString mimeName(const Node *n, const Entry &e) const;
    void queueSniff(const Node *n, const Entry &e) const;
    void runSniffs();
    void sniffed(const QUrl &url, const QByteArray &name, const Entry &result);

    /*! The entries of the folder row \a e of \a n (ChildCountRole); -1 while not known. */
    int childCount(const Node *n, const Entry &e) const;
    void runCounts();
    /*! Goes on with expandToUrl()'s walks as far as the rows are there. */
    void continueExpand();
    /*! The folder a drop at \a row under \a parent goes into (invalid: none). */
    QUrl dropFolder(int row, int column, const QModelIndex &parent) const;
};

} // namespace Qvfs

#endif
