// SPDX-License-Identifier: LGPL-2.1-or-later
// Writes the seed corpora of the fuzzers (fuzz/corpus/<target>/) with the real encoders,
// so the fuzzers start from well-formed input. Run by hand after a wire format change:
//   makeseeds <dir>          (writes <dir>/fuzz_entrybatch/..., <dir>/fuzz_frames/..., ...)
#include "entrycodec_p.h"
#include "frame_p.h"
#include "fuzz_common.h"
#include "metadata.h"
#include "requests_p.h"
#include "sftppacket_p.h"

#include <QDir>
#include <QFile>

#include <cstring>
#include <limits>

using namespace Qvfs;
using namespace Qvfs::Internal;

namespace
{

bool write(const QString &dir, const char *name, const QByteArray &bytes)
{
    QDir().mkpath(dir);
    QFile f(dir + QLatin1Char('/') + QLatin1String(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) {
        std::fprintf(stderr, "makeseeds: cannot write %s\n", qPrintable(f.fileName()));
        return false;
    }
    return true;
}

void lsEntry(EntryEncoder &enc, QByteArray &out, int i)
{
    char name[16];
    std::snprintf(name, sizeof name, "file%06d", i);
    enc.begin(out);
    enc.addString(Name, QByteArrayView(name, 10));
    enc.addNumber(Type, i % 5 ? 1 : 2);
    enc.addNumber(Mode, 0644);
    enc.addNumber(Size, i * 1000 - 3);
    enc.addNumber(MTime, 1700000000 + i);
    enc.addNumber(MTimeNs, 123456789);
    enc.addNumber(Uid, 1000);
    enc.addAtom(User, i % 3 ? "bob" : "root");
    enc.addAtom(Group, "users");
    if (!enc.end())
        std::abort();
}

QByteArray frame(Wire::Msg type, quint32 id, const QByteArray &payload)
{
    char h[Wire::HeaderSize];
    Wire::putHeader(h, Wire::Header { quint32(payload.size()), quint16(type), 0, id });
    return QByteArray(h, Wire::HeaderSize) + payload;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: makeseeds <corpus dir>\n");
        return 2;
    }
    const QString root = QFile::decodeName(argv[1]);
    bool ok = true;

    // ---- entry batches: sequences of payloads (fuzz_common.h pieces)
    {
        const QString dir = root + QStringLiteral("/fuzz_entrybatch");
        EntryEncoder enc;
        QByteArray p1, p2, p3;
        enc.beginPayload(p1, 4);
        for (int i = 0; i < 4; ++i)
            lsEntry(enc, p1, i);
        enc.beginPayload(p2, 3);
        lsEntry(enc, p2, 7);
        enc.begin(p2);
        enc.addString(Name, "link\xff");
        enc.addNumber(Type, 3);
        enc.addString(LinkTarget, "../target");
        enc.addAtom(MimeType, "inode/symlink");
        if (!enc.end())
            std::abort();
        enc.begin(p2);
        enc.addNumber(Size, std::numeric_limits<qint64>::min());
        enc.addNumber(ExtraNumber + 63, std::numeric_limits<qint64>::max());
        enc.addString(ExtraString, "");
        enc.addAtom(ExtraAtom, "x");
        if (!enc.end())
            std::abort();
        enc.resetAtoms();
        enc.beginPayload(p3, 1);
        lsEntry(enc, p3, 9);

        QByteArray one;
        QvfsFuzz::appendPiece(one, p1);
        ok = ok && write(dir, "ls-batch", one);
        QByteArray two;
        QvfsFuzz::appendPiece(two, p1);
        QvfsFuzz::appendPiece(two, p2);
        QvfsFuzz::appendPiece(two, p3, true);
        ok = ok && write(dir, "three-batches-new-request", two);
        // a redefinition of key set 1 by a later batch
        QByteArray redef;
        QvfsFuzz::appendPiece(redef, QByteArray("\x01\x00\x01\x01\x03\x01\x54", 7));
        QvfsFuzz::appendPiece(redef, QByteArray("\x01\x00\x01\x02\x81\x02\x04\x01\x01x\x0e", 11));
        ok = ok && write(dir, "redefinition", redef);
    }

    // ---- encoder scripts (see fuzz_entryencoder.cpp)
    {
        const QString dir = root + QStringLiteral("/fuzz_entryencoder");
        ok = ok
            && write(dir, "ls-like",
                QByteArray("\x01\x0b\x0b\x00\x01\x02\x02\x05\x0b\x05\x00\x10\x02\x11\x01\x0b\x0b\x01\x01", 19));
        ok = ok
            && write(dir, "flush-and-request",
                QByteArray(
                    "\x02\x05\x0b\x01\x0c\xc2\x41\x42\x43\x44\x45\x46\x47\x48\x49\x4a\xf9\x02\x05\x0b\x01\x0c\x01",
                    23));
        ok = ok
            && write(dir, "shapes",
                QByteArray("\x03\x01\x01\x02\x02\x03\x03\x04\x04\x05\x05\x06\x06\x07\x07\x08\x08\x09\x09\x0a\x0a", 21));
    }

    // ---- frame streams: one chunking byte, then frames
    {
        const QString dir = root + QStringLiteral("/fuzz_frames");
        MetaData opts;
        opts.setNumber("details", 0x1f);
        opts.setBytes("special", "x\xff");
        MetaData hello;
        hello.setNumber("pid", 4242);
        hello.setBytes("protocol", "file");
        EntryEncoder enc;
        QByteArray entries;
        enc.beginPayload(entries, 2);
        lsEntry(enc, entries, 1);
        lsEntry(enc, entries, 2);
        QByteArray stream("\x07");
        stream += frame(Wire::Msg::Hello, 0, encodeHello(hello));
        stream += frame(Wire::Msg::Command, 1,
            encodeCommand(WireCommand { Wire::Command::ListDir, { QUrl(QStringLiteral("file:///tmp/a%FF")) }, opts }));
        stream += frame(Wire::Msg::Entries, 1, entries);
        stream += frame(Wire::Msg::Error, 1, encodeError(4, { "/tmp/a", "b" }));
        QByteArray finished;
        opts.encode(finished);
        stream += frame(Wire::Msg::Finished, 1, finished);
        stream += frame(Wire::Msg::Heartbeat, 2, QByteArray());
        ok = ok && write(dir, "session", stream);
        ok = ok
            && write(dir, "command",
                QByteArray("\x01")
                    + frame(Wire::Msg::Command, 9,
                        encodeCommand(toWire(CopyRequest { { QUrl(QStringLiteral("sftp://u@h:22/a")) },
                            QUrl(QStringLiteral("file:///b")), CopyRequest::Target::IntoIfFolder,
                            ConflictPolicy::Rename, true, true, true, true }))));
        // A watch: its command, the listing, the end of it, a batch and its commit, a
        // resync, a move and the end.
        WatchChanges listed;
        listed.kind = WatchChanges::Kind::Listed;
        listed.mode = WatchMode::Native;
        WatchChanges commit;
        commit.removed = { "gone\xff", "x" };
        commit.renamed = { { "a", "b\n" } };
        WatchChanges resync;
        resync.kind = WatchChanges::Kind::Resync;
        WatchChanges moved;
        moved.kind = WatchChanges::Kind::Moved;
        moved.url = QUrl(QStringLiteral("file:///tmp/b%FF"));
        WatchChanges gone;
        gone.kind = WatchChanges::Kind::Gone;
        QByteArray watch("\x03");
        watch += frame(Wire::Msg::Command, 3,
            encodeCommand(toWire(WatchRequest { QUrl(QStringLiteral("file:///tmp/a")), DetailsDefault, 500 })));
        watch += frame(Wire::Msg::Entries, 3, entries);
        watch += frame(Wire::Msg::Changes, 3, encodeChanges(listed));
        watch += frame(Wire::Msg::Changes, 3, encodeChanges(commit));
        watch += frame(Wire::Msg::Changes, 3, encodeChanges(resync));
        watch += frame(Wire::Msg::Changes, 3, encodeChanges(listed));
        watch += frame(Wire::Msg::Changes, 3, encodeChanges(moved));
        watch += frame(Wire::Msg::Changes, 3, encodeChanges(gone));
        ok = ok && write(dir, "watch", watch);
    }

    // ---- URLs: pieces arg, cwd, name
    {
        const QString dir = root + QStringLiteral("/fuzz_url");
        auto url = [](const char *arg, const char *cwd, QByteArrayView name) {
            QByteArray b;
            QvfsFuzz::appendPiece(b, arg);
            QvfsFuzz::appendPiece(b, cwd);
            QvfsFuzz::appendPiece(b, name);
            return b;
        };
        ok = ok && write(dir, "local", url("/tmp//a/./b/../c\xff/", "/", "n\xfe"));
        ok = ok && write(dir, "relative", url("../x/y", "/home/bob", "file.txt"));
        ok = ok && write(dir, "sftp", url("sftp://bob:pw@Example.ORG:22/a/%2F/b?q#f", "/", "c"));
        ok = ok && write(dir, "webdav", url("webdavs://h:443", "/", "a/b"));
        ok = ok && write(dir, "file-url", url("file://localhost/a%20b/%FF", "", ".."));
    }
    // ---- sftp: pieces, each a read from ssh's stdout (flagged: one bare packet)
    {
        namespace P = Qvfs::Sftp::Packet;
        using Qvfs::Sftp::Attributes;
        const QString dir = root + QStringLiteral("/fuzz_sftppacket");
        QByteArray version;
        {
            P::Writer w(version);
            w.begin(P::Version);
            w.u32(3);
            for (const char *ext : { "posix-rename@openssh.com", "statvfs@openssh.com", "fsync@openssh.com",
                     "limits@openssh.com", "copy-data" }) {
                w.string(ext);
                w.string(std::strcmp(ext, "statvfs@openssh.com") == 0 ? "2" : "1");
            }
            w.end();
        }
        Attributes file;
        file.flags = Attributes::Size | Attributes::UidGid | Attributes::Permissions | Attributes::AccessModTime;
        file.size = 123456;
        file.uid = 1000;
        file.gid = 100;
        file.permissions = 0100644;
        file.setTimes(1700000000, 1700000001);
        Attributes link = file;
        link.permissions = 0120777;
        link.flags |= Attributes::Extended;
        link.extended = { { "acl@example.org", QByteArray("\0\xff", 2) } };
        QByteArray replies;
        {
            P::Writer w(replies);
            w.begin(P::Handle, 1);
            w.string(QByteArray("\0\0\0\1", 4));
            w.end();
            w.begin(P::Name, 2);
            w.u32(3);
            w.string(".");
            w.string("drwxr-xr-x 2 bob users 4096 Jan 1 00:00 .");
            w.attrs(Attributes());
            w.string("caf\xe9.txt");
            w.string("-rw-r--r-- 1 bob users 123456 Jan 1 00:00 caf\xe9.txt");
            w.attrs(file);
            w.string("link");
            w.string("");
            w.attrs(link);
            w.end();
            w.begin(P::Status, 3);
            w.u32(P::Eof);
            w.string("End of file");
            w.string("");
            w.end();
            w.begin(P::Data, 4);
            w.string(QByteArray(3000, 'd'));
            w.end();
            w.begin(P::Attrs, 5);
            w.attrs(file);
            w.end();
            w.begin(P::ExtendedReply, 6);
            for (quint64 v : { quint64(262144), quint64(261120), quint64(261120), quint64(0) })
                w.u64(v);
            w.end();
            w.begin(P::Status, 7);
            w.u32(P::NoSuchFile);
            w.end();
        }
        QByteArray session;
        QvfsFuzz::appendPiece(session, version);
        QvfsFuzz::appendPiece(session, replies.left(37));
        QvfsFuzz::appendPiece(session, replies.mid(37));
        ok = ok && write(dir, "session", session);
        QByteArray bare;
        QvfsFuzz::appendPiece(bare, QByteArrayView(replies).sliced(4, 13), true); // HANDLE without its length field
        QvfsFuzz::appendPiece(bare, QByteArray("\x68\0\0\0\x09\x7f\xff\xff\xff", 9), true); // NAME, huge count
        ok = ok && write(dir, "bare", bare);
    }
    return ok ? 0 : 1;
}
