// SPDX-License-Identifier: LGPL-2.1-or-later
#include "mountnodes_p.h"

#include <Qvfs/Protocol>
#include <Qvfs/Url>

namespace Mount
{

NodeTable::NodeTable(const QUrl &url)
{
    auto root = std::make_unique<Node>();
    root->ino = FUSE_ROOT_ID;
    root->kind = url.isEmpty() ? Node::Space : Node::Url;
    root->url = url;
    root->lookups = 1; // the kernel never forgets the root
    m_nodes.emplace(FUSE_ROOT_ID, std::move(root));
}

Node *NodeTable::find(fuse_ino_t ino) const
{
    const auto it = m_nodes.find(ino);
    return it == m_nodes.end() ? nullptr : it->second.get();
}

Node *NodeTable::child(const Node *parent, QByteArrayView name) const
{
    const auto it = parent->children.constFind(name.toByteArray());
    return it == parent->children.cend() ? nullptr : find(it.value());
}

Node *NodeTable::attach(Node *parent, const QByteArray &name, const QUrl &url, Node::Kind kind)
{
    if (Node *known = child(parent, name))
        return known;
    auto node = std::make_unique<Node>();
    node->ino = m_next++;
    node->parent = parent->ino;
    node->name = name;
    node->url = url;
    node->kind = kind;
    Node *n = node.get();
    parent->children.insert(name, n->ino);
    m_nodes.emplace(n->ino, std::move(node));
    return n;
}

void NodeTable::unlinkFromParent(const Node *node)
{
    if (Node *parent = find(node->parent)) {
        const auto it = parent->children.find(node->name);
        if (it != parent->children.end() && it.value() == node->ino)
            parent->children.erase(it);
    }
}

void NodeTable::detach(Node *node)
{
    unlinkFromParent(node);
    dropIfUnused(node);
}

void NodeTable::move(Node *node, Node *newParent, const QByteArray &newName)
{
    if (Node *replaced = child(newParent, newName); replaced && replaced != node)
        detach(replaced);
    unlinkFromParent(node);
    node->parent = newParent->ino;
    node->name = newName;
    newParent->children.insert(newName, node->ino);
    rebase(node);
}

void NodeTable::rebase(Node *node)
{
    if (const Node *parent = find(node->parent))
        node->url = childUrl(parent, node->name);
    for (const fuse_ino_t c : std::as_const(node->children)) {
        if (Node *n = find(c))
            rebase(n);
    }
}

void NodeTable::forget(fuse_ino_t ino, quint64 count)
{
    Node *node = find(ino);
    if (!node || ino == FUSE_ROOT_ID)
        return;
    node->lookups = count >= node->lookups ? 0 : node->lookups - count;
    dropIfUnused(node);
}

void NodeTable::closed(Node *node)
{
    if (node->opens > 0)
        --node->opens;
    dropIfUnused(node);
}

void NodeTable::dropIfUnused(Node *node)
{
    // A folder stays while the kernel knows one of its children: they name it as parent.
    if (node->ino == FUSE_ROOT_ID || node->lookups > 0 || node->opens > 0 || node->spool || !node->children.isEmpty())
        return;
    unlinkFromParent(node);
    Node *parent = find(node->parent);
    if (dropped)
        dropped(*node);
    const fuse_ino_t ino = node->ino;
    m_nodes.erase(ino); // node is gone from here on
    if (parent)
        dropIfUnused(parent);
}

QUrl NodeTable::childUrl(const Node *parent, QByteArrayView name)
{
    if (!Qvfs::Url::isSafeName(name))
        return QUrl();
    switch (parent->kind) {
    case Node::Url:
        return Qvfs::Url::child(parent->url, name);
    case Node::Space: {
        const Qvfs::Protocol protocol = Qvfs::Protocol::find(QString::fromUtf8(name));
        if (!protocol.isValid() || protocol.scheme().toUtf8() != name || name == "file")
            return QUrl(); // aliases and file: are not folders of their own
        QUrl scheme;
        scheme.setScheme(protocol.scheme());
        return scheme;
    }
    case Node::Scheme: {
        // "user@host:port" as in the URL, never a password (it would show in every path).
        QUrl url;
        url.setScheme(parent->url.scheme());
        url.setAuthority(QString::fromUtf8(name), QUrl::StrictMode);
        url.setPath(QStringLiteral("/"));
        if (!url.isValid() || url.host().isEmpty() || !url.password().isNull()
            || url.authority(QUrl::FullyEncoded).toUtf8() != name)
            return QUrl();
        return url;
    }
    }
    return QUrl();
}

QList<QByteArray> NodeTable::folderBelowTop(const Node *node, QByteArray *topPath) const
{
    QList<QByteArray> names;
    const Node *top = find(node->parent);
    while (top) {
        const Node *up = find(top->parent);
        if (!up || up->kind != Node::Url)
            break; // top is the root, or a host's folder of the URL space
        names.prepend(top->name);
        top = up;
    }
    *topPath = top ? QByteArray::fromPercentEncoding(top->url.path(QUrl::FullyEncoded).toLatin1()) : QByteArray("/");
    return names;
}

namespace
{

QList<QByteArray> segments(QByteArrayView path)
{
    QList<QByteArray> out;
    for (const QByteArray &s : path.toByteArray().split('/')) {
        if (!s.isEmpty() && s != ".")
            out.append(s);
    }
    return out;
}

} // namespace

QByteArray containedLinkTarget(QByteArrayView target, const QList<QByteArray> &dir, QByteArrayView topPath)
{
    QList<QByteArray> resolved;
    if (target.startsWith('/')) {
        resolved = segments(target);
        const QList<QByteArray> top = segments(topPath);
        if (resolved.mid(0, top.size()) == top)
            resolved = resolved.mid(top.size());
    } else {
        // Kept as it is when it never climbs above the top.
        qsizetype depth = dir.size();
        bool escapes = false;
        for (const QByteArray &s : target.toByteArray().split('/')) {
            if (s == "..")
                escapes = escapes || --depth < 0;
            else if (!s.isEmpty() && s != ".")
                ++depth;
        }
        if (!escapes)
            return target.toByteArray();
        resolved = dir;
    }
    if (!target.startsWith('/')) {
        for (const QByteArray &s : segments(target)) {
            if (s != "..")
                resolved.append(s);
            else if (!resolved.isEmpty())
                resolved.removeLast(); // at the top, ".." stays there
        }
    } else {
        // An absolute path's own ".." stop at the top too.
        QList<QByteArray> clean;
        for (const QByteArray &s : std::as_const(resolved)) {
            if (s != "..")
                clean.append(s);
            else if (!clean.isEmpty())
                clean.removeLast();
        }
        resolved = clean;
    }
    QByteArray out;
    for (qsizetype i = 0; i < dir.size(); ++i)
        out += "../";
    out += resolved.join('/');
    if (out.isEmpty())
        out = ".";
    else if (out.endsWith('/'))
        out.chop(1);
    return out;
}

struct stat statFromEntry(const Qvfs::Entry &entry, fuse_ino_t ino, uid_t uid, gid_t gid)
{
    struct stat st = {};
    st.st_ino = ino;
    const mode_t known = Qvfs::fileTypeMode(entry.type());
    const mode_t type = known ? known : S_IFREG;
    qint64 mode = entry.number(Qvfs::Mode, -1);
    if (mode < 0)
        mode = type == S_IFDIR ? 0755 : type == S_IFLNK ? 0777 : 0644;
    if (entry.number(Qvfs::ReadOnly, 0) == 1)
        mode &= ~0222;
    st.st_mode = type | mode_t(mode & 07777);
    st.st_nlink = mode_t(qMax<qint64>(1, entry.number(Qvfs::NLink, 1)));
    st.st_uid = uid;
    st.st_gid = gid;
    const qint64 size = entry.size();
    st.st_size = type == S_IFLNK ? entry.bytes(Qvfs::LinkTarget).size() : qMax<qint64>(0, size);
    st.st_blksize = 128 * 1024;
    st.st_blocks = entry.number(Qvfs::Blocks, (st.st_size + 511) / 512);
    const qint64 mtime = entry.number(Qvfs::MTime, 0);
    st.st_mtim.tv_sec = mtime;
    st.st_mtim.tv_nsec = entry.number(Qvfs::MTimeNs, 0);
    st.st_atim.tv_sec = entry.number(Qvfs::ATime, mtime);
    st.st_atim.tv_nsec = entry.number(Qvfs::ATimeNs, st.st_mtim.tv_nsec);
    st.st_ctim = st.st_mtim;
    return st;
}

struct stat virtualFolderStat(fuse_ino_t ino, uid_t uid, gid_t gid)
{
    struct stat st = {};
    st.st_ino = ino;
    st.st_mode = S_IFDIR | 0555;
    st.st_nlink = 1;
    st.st_uid = uid;
    st.st_gid = gid;
    st.st_blksize = 4096;
    return st;
}

} // namespace Mount
