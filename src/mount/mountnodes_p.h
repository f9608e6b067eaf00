// SPDX-License-Identifier: LGPL-2.1-or-later
// The inodes a qvfs mount has told the kernel about, and the URL each one stands for.
// Internal to the mount.
#ifndef QVFS_MOUNTNODES_P_H
#define QVFS_MOUNTNODES_P_H

#include "fuseapi_p.h"

#include <Qvfs/Entry>

#include <QByteArray>
#include <QHash>
#include <QUrl>

#include <functional>
#include <memory>
#include <sys/stat.h>
#include <unordered_map>

namespace Mount
{

struct Spool;

/*! One inode: a URL, or a folder of the URL space (its root, a scheme). */
struct Node
{
    enum Kind : quint8 {
        Url, //!< an entry at url
        Space, //!< the root of the whole URL space: one folder per scheme
        Scheme, //!< DIR/<scheme>: one folder per authority entered ("user@host:port")
    };
    fuse_ino_t ino = 0;
    fuse_ino_t parent = 0; //!< 0 for the root
    QByteArray name; //!< raw bytes
    QUrl url; //!< Url: the entry; Scheme: the scheme alone
    Kind kind = Url;
    quint64 lookups = 0; //!< the kernel's references (lookup, create, readdirplus; less forget)
    int opens = 0; //!< open file handles
    struct stat attr = {}; //!< valid when hasAttr
    bool hasAttr = false;
    QByteArray linkTarget; //!< a symlink's target
    QHash<QByteArray, fuse_ino_t> children; //!< the children the kernel knows by name
    std::shared_ptr<Spool> spool; //!< while opened for writing
    // What a read-only open last found, for keep_cache: unchanged content keeps the
    // kernel's pages.
    qint64 openedSize = -1;
    qint64 openedMtimeNs = -1;
};

/*!
 * The table of inodes. Numbers are never reused during a mount (a stale handle can
 * never reach another file). A node lives while the kernel holds a reference to it or
 * a file of it is open.
 */
class NodeTable
{
public:
    /*! Root (inode 1): \a url's tree, or the URL space when \a url is empty. */
    explicit NodeTable(const QUrl &url);

    Node *find(fuse_ino_t ino) const;
    Node *root() const { return find(FUSE_ROOT_ID); }
    /*! The known child \a name of \a parent, or nullptr. */
    Node *child(const Node *parent, QByteArrayView name) const;
    /*! The child \a name of \a parent standing for \a url (made when new). */
    Node *attach(Node *parent, const QByteArray &name, const QUrl &url, Node::Kind kind = Node::Url);
    /*! \a node's name is gone (deleted, or replaced by a rename). */
    void detach(Node *node);
    /*! \a node is now \a newParent / \a newName; its descendants' URLs follow. */
    void move(Node *node, Node *newParent, const QByteArray &newName);
    /*! The kernel drops \a count references to \a ino. */
    void forget(fuse_ino_t ino, quint64 count);
    /*! A file handle of \a node was closed. */
    void closed(Node *node);
    /*!
     * The names from the top of \a node's tree (the mount's root, or a host's folder in the
     * URL space) down to \a node's folder, and in \a topPath the top's path on the server.
     */
    QList<QByteArray> folderBelowTop(const Node *node, QByteArray *topPath) const;
    /*! Forgets \a node if nothing needs it any more (no reference, handle or spool). */
    void dropIfUnused(Node *node);
    qsizetype size() const { return qsizetype(m_nodes.size()); }
    /*! Called with each node just before it is forgotten. */
    std::function<void(const Node &)> dropped;

    /*!
     * The URL of the child \a name of \a parent: a path segment below a URL, an
     * authority below a scheme folder; invalid when \a name cannot be one (unsafe bytes,
     * a password, an unknown scheme).
     */
    static QUrl childUrl(const Node *parent, QByteArrayView name);

private:
    /*! Takes \a node out of its parent's children, if it is the one of its name there. */
    void unlinkFromParent(const Node *node);
    void rebase(Node *node);

    std::unordered_map<fuse_ino_t, std::unique_ptr<Node>> m_nodes;
    fuse_ino_t m_next = FUSE_ROOT_ID + 1;
};

/*! The attributes the kernel sees for \a entry (owned by \a uid / \a gid: the mounting user). */
struct stat statFromEntry(const Qvfs::Entry &entry, fuse_ino_t ino, uid_t uid, gid_t gid);
/*!
 * The target of a symlink the kernel may follow: \a target as the server has it, for a
 * link in the folder \a dir (names below the top of the tree, whose path on the server is
 * \a topPath). A relative target that stays in the tree is kept; an absolute one is made
 * relative (the server's path of the top taken off; a path elsewhere is read as if the top
 * were the server's root), and ".." stops at the top. So no link under the mount point
 * names a local file outside it: the kernel follows links here, not the server.
 */
QByteArray containedLinkTarget(QByteArrayView target, const QList<QByteArray> &dir, QByteArrayView topPath);
/*! The attributes of a folder of the URL space itself. */
struct stat virtualFolderStat(fuse_ino_t ino, uid_t uid, gid_t gid);

} // namespace Mount

#endif
