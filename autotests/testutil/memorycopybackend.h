// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TEST_MEMORYCOPYBACKEND_H
#define QVFS_TEST_MEMORYCOPYBACKEND_H

// A CopyBackend over a tree held in memory, for running TreeCopy in-process: every
// primitive checks what a real filesystem would (an existing name, a missing parent, a
// name over 255 bytes, a folder that is not empty) and counts what it did, so that a test
// sees whether a move renamed or copied, how many bytes went through copyFile(), and can
// make one primitive fail or one rename impossible (another device).

#include "copybackend.h"
#include "error.h"

#include <QMap>
#include <QSet>
#include <QStringList>

namespace Qvfs::Test
{

class MemoryCopyBackend : public CopyBackend
{
public:
    struct Node
    {
        CopyEntry::Type type = CopyEntry::Type::File;
        QByteArray data; //!< a file's content, a link's target
        int permissions = 0644;
        qint64 mtime = 1000;
    };

    // ---- the tree
    void addFolder(const QByteArray &path, int permissions = 0755, qint64 mtime = 1000)
    {
        nodes.insert(path, Node { CopyEntry::Type::Folder, {}, permissions, mtime });
    }
    void addFile(const QByteArray &path, const QByteArray &data, int permissions = 0644, qint64 mtime = 1000)
    {
        nodes.insert(path, Node { CopyEntry::Type::File, data, permissions, mtime });
    }
    void addLink(const QByteArray &path, const QByteArray &target)
    {
        nodes.insert(path, Node { CopyEntry::Type::Link, target, 0777, 1000 });
    }
    void addSpecial(const QByteArray &path) { nodes.insert(path, Node { CopyEntry::Type::Special, {}, 0644, 1000 }); }
    /*! "path=type:content" lines of everything below \a top (itself included), sorted. */
    QStringList dump(const QByteArray &top = "/") const
    {
        QStringList out;
        for (auto it = nodes.cbegin(); it != nodes.cend(); ++it) {
            if (it.key() != top && !it.key().startsWith(top == "/" ? top : QByteArray(top + '/')))
                continue;
            static const char *const types[] = { "f", "d", "l", "s" };
            out.append(QString::fromUtf8(
                it.key() + '=' + types[int(it->type)] + ':' + it->data + ':' + QByteArray::number(it->permissions, 8)));
        }
        return out;
    }
    using CopyBackend::url;
    static QUrl url(const QByteArray &path)
    {
        QUrl u;
        u.setScheme(QStringLiteral("mem"));
        u.setPath(QString::fromUtf8(path));
        return u;
    }

    // ---- steering and counting
    bool renameAcrossDevices = false; //!< rename() answers ErrUnsupportedAction (copy and delete)
    bool treeCopies = false; //!< copyTree() copies a whole folder in one operation
    QSet<QByteArray> failCopyOf; //!< copyFile() of these source paths fails with ErrCannotWrite
    QSet<QByteArray> denied; //!< list() and copyFile() of these source paths fail with ErrAccessDenied
    std::function<void(const QByteArray &op, const QByteArray &path)> beforeOp; //!< a race, held here
    qint64 bytesCopied = 0; //!< through copyFile()
    int renames = 0;
    int stats = 0;
    int treeCopiesDone = 0;
    QStringList ops; //!< "op path" for every change

    // ---- CopyBackend
    WorkerResult begin(const CopyRequest &) override { return WorkerResult::pass(); }
    WorkerResult place(const QUrl &url, CopyPlace *out) override
    {
        out->url = url;
        out->address = url.path().toUtf8();
        while (out->address.size() > 1 && out->address.endsWith('/'))
            out->address.chop(1);
        return WorkerResult::pass();
    }
    WorkerResult stat(const CopyPlace &place, CopyEntry *out, bool follow) override
    {
        ++stats;
        QByteArray path = place.address;
        auto it = nodes.constFind(path);
        if (follow && it != nodes.cend() && it->type == CopyEntry::Type::Link)
            it = nodes.constFind(path = it->data);
        if (it == nodes.cend())
            return WorkerResult::fail(ErrDoesNotExist, place.url);
        *out = entryOf(place, *it);
        return WorkerResult::pass();
    }
    WorkerResult list(const CopyEntry &folder, QList<CopyEntry> *out) override
    {
        out->clear();
        if (denied.contains(folder.place.address))
            return WorkerResult::fail(ErrAccessDenied, folder.place.url);
        if (!nodes.contains(folder.place.address))
            return WorkerResult::fail(ErrDoesNotExist, folder.place.url);
        const QByteArray prefix = folder.place.address == "/" ? QByteArray("/") : folder.place.address + '/';
        for (auto it = nodes.lowerBound(prefix); it != nodes.cend() && it.key().startsWith(prefix); ++it) {
            const QByteArray name = it.key().mid(prefix.size());
            if (!name.isEmpty() && !name.contains('/'))
                out->append(entryOf(child(folder.place, name), *it));
        }
        return WorkerResult::pass();
    }
    bool isSame(const CopyEntry &a, const CopyEntry &b) override { return a.place.address == b.place.address; }
    bool renamesWhole(const CopyEntry &, const CopyPlace &) override { return !renameAcrossDevices; }
    bool isInside(const CopyEntry &folder, const CopyPlace &target) override
    {
        return target.address.startsWith(
            folder.place.address == "/" ? QByteArray("/") : QByteArray(folder.place.address + '/'));
    }
    WorkerResult makeFolder(const CopyEntry &, const CopyPlace &dst) override
    {
        if (WorkerResult r = checkCreate("mkdir", dst, false); !r.ok())
            return r;
        nodes.insert(dst.address, Node { CopyEntry::Type::Folder, {}, 0700, 2000 });
        return WorkerResult::pass();
    }
    void finishFolder(const CopyEntry &source, const CopyPlace &dst) override
    {
        auto it = nodes.find(dst.address);
        if (it == nodes.end())
            return;
        it->permissions = source.permissions;
        it->mtime = source.mtime;
        ops.append(QStringLiteral("finish ") + QString::fromUtf8(dst.address));
    }
    WorkerResult copyFile(const CopyEntry &source, const CopyPlace &dst, bool replace,
        const std::function<void(qint64)> &progress) override
    {
        if (WorkerResult r = checkCreate("copy", dst, replace); !r.ok())
            return r;
        if (failCopyOf.contains(source.place.address))
            return WorkerResult::fail(ErrCannotWrite, dst.url); // atomic: nothing is left
        if (denied.contains(source.place.address))
            return WorkerResult::fail(ErrAccessDenied, source.place.url);
        if (!nodes.contains(source.place.address))
            return WorkerResult::fail(ErrDoesNotExist, source.place.url); // gone since listed
        const Node from = nodes.value(source.place.address);
        progress(from.data.size() / 2);
        progress(from.data.size());
        bytesCopied += from.data.size();
        nodes.insert(dst.address, from);
        return WorkerResult::pass();
    }
    WorkerResult copyLink(const CopyEntry &source, const CopyPlace &dst, bool replace) override
    {
        if (WorkerResult r = checkCreate("link", dst, replace); !r.ok())
            return r;
        nodes.insert(dst.address, nodes.value(source.place.address));
        return WorkerResult::pass();
    }
    WorkerResult rename(const CopyEntry &source, const CopyPlace &dst, bool replace) override
    {
        if (renameAcrossDevices)
            return WorkerResult::fail(ErrUnsupportedAction);
        if (WorkerResult r = checkCreate("rename", dst, replace); !r.ok())
            return r;
        moveTree(source.place.address, dst.address, true);
        ++renames;
        return WorkerResult::pass();
    }
    WorkerResult remove(const CopyEntry &entry) override
    {
        const QByteArray &path = entry.place.address;
        if (beforeOp)
            beforeOp("remove", path);
        if (!nodes.contains(path))
            return WorkerResult::fail(ErrDoesNotExist, entry.place.url);
        const auto next = std::next(nodes.constFind(path));
        if (next != nodes.cend() && next.key().startsWith(QByteArray(path + '/')))
            return WorkerResult::fail(ErrDirectoryNotEmpty, entry.place.url);
        nodes.remove(path);
        ops.append(QStringLiteral("remove ") + QString::fromUtf8(path));
        return WorkerResult::pass();
    }
    WorkerResult copyTree(const CopyEntry &source, const CopyPlace &dst) override
    {
        if (!treeCopies)
            return CopyBackend::copyTree(source, dst);
        if (WorkerResult r = checkCreate("tree", dst, false); !r.ok())
            return r;
        moveTree(source.place.address, dst.address, false);
        ++treeCopiesDone;
        return WorkerResult::pass();
    }

    QMap<QByteArray, Node> nodes { { "/", Node { CopyEntry::Type::Folder, {}, 0755, 1000 } } };

private:
    CopyEntry entryOf(const CopyPlace &place, const Node &n) const
    {
        CopyEntry e;
        e.place = place;
        e.name = place.address == "/" ? QByteArray() : place.address.mid(place.address.lastIndexOf('/') + 1);
        e.type = n.type;
        e.size = n.type == CopyEntry::Type::File ? n.data.size() : n.type == CopyEntry::Type::Folder ? -1 : 0;
        e.permissions = n.permissions;
        e.mtime = n.mtime;
        return e;
    }
    WorkerResult checkCreate(const char *op, const CopyPlace &dst, bool replace)
    {
        if (beforeOp)
            beforeOp(op, dst.address);
        const qsizetype slash = dst.address.lastIndexOf('/');
        if (dst.address.size() - slash - 1 > 255)
            return WorkerResult::fail(ErrNameTooLong, dst.url);
        const auto parent = nodes.constFind(slash == 0 ? QByteArray("/") : dst.address.left(slash));
        if (parent == nodes.cend() || parent->type != CopyEntry::Type::Folder)
            return WorkerResult::fail(ErrDoesNotExist, dst.url);
        const auto there = nodes.constFind(dst.address);
        if (there != nodes.cend()) {
            if (!replace)
                return WorkerResult::fail(ErrAlreadyExists, dst.url);
            if (there->type == CopyEntry::Type::Folder)
                return WorkerResult::fail(ErrIsDirectory, dst.url);
        }
        ops.append(QString::fromLatin1(op) + u' ' + QString::fromUtf8(dst.address));
        return WorkerResult::pass();
    }
    // \a from and everything below it to \a to (removed at \a from when \a move).
    void moveTree(const QByteArray &from, const QByteArray &to, bool move)
    {
        QMap<QByteArray, Node> taken;
        for (auto it = nodes.begin(); it != nodes.end();) {
            if (it.key() == from || it.key().startsWith(QByteArray(from + '/'))) {
                taken.insert(to + it.key().mid(from.size()), *it);
                it = move ? nodes.erase(it) : std::next(it);
            } else {
                ++it;
            }
        }
        nodes.insert(taken);
    }
};

} // namespace Qvfs::Test

#endif
