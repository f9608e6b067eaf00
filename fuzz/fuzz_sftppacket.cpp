// SPDX-License-Identifier: LGPL-2.1-or-later
// A hostile SFTP server: the input is pieces (fuzz_common.h). A piece without the flag is
// the next read from ssh's stdout, fed to the engine's InputBuffer, which cuts the
// stream into packets; a flagged piece is one bare packet. Every packet goes through the
// reply parser (VERSION through its own), NAME records are iterated, EXTENDED_REPLY bodies
// go through the limits and statvfs parsers. Checked: every view lies inside its packet,
// a NAME yields exactly its count, parsed ATTRS encode and parse back to the same values,
// and the input buffer never holds more than one maximal packet plus one read.
#include "fuzz_common.h"
#include "sftppacket_p.h"

#include <cstring>

using namespace Qvfs::Sftp;
namespace P = Qvfs::Sftp::Packet;

namespace
{

constexpr qsizetype ReadSize = 4096;

bool inside(QByteArrayView inner, QByteArrayView outer)
{
    if (inner.isEmpty())
        return true;
    return inner.data() >= outer.data() && inner.data() + inner.size() <= outer.data() + outer.size();
}

void checkAttrsRoundTrip(const Attributes &a)
{
    QByteArray out;
    P::Writer w(out);
    w.begin(P::Attrs, 1);
    w.attrs(a);
    w.end();
    P::Reply again;
    QVFS_FUZZ_CHECK(P::parseReply(QByteArrayView(out).sliced(4), &again));
    const quint32 known = Attributes::Size | Attributes::UidGid | Attributes::Permissions | Attributes::AccessModTime
        | (a.extended.isEmpty() ? 0u : quint32(Attributes::Extended));
    const Attributes &b = again.attrs;
    QVFS_FUZZ_CHECK(b.flags == (a.flags & known));
    QVFS_FUZZ_CHECK(!a.has(Attributes::Size) || b.size == a.size);
    QVFS_FUZZ_CHECK(!a.has(Attributes::UidGid) || (b.uid == a.uid && b.gid == a.gid));
    QVFS_FUZZ_CHECK(!a.has(Attributes::Permissions) || b.permissions == a.permissions);
    QVFS_FUZZ_CHECK(!a.has(Attributes::AccessModTime) || (b.atime == a.atime && b.mtime == a.mtime));
    QVFS_FUZZ_CHECK(b.extended == a.extended);
}

void onePacket(QByteArrayView packet)
{
    if (!packet.isEmpty() && quint8(packet[0]) == P::Version) {
        P::VersionInfo info;
        if (P::parseVersion(packet, &info)) {
            QVFS_FUZZ_CHECK(info.extensions.size() <= 256);
            for (const auto &[name, version] : info.extensions)
                QVFS_FUZZ_CHECK(info.hasExtension(name, version));
        }
        return;
    }
    P::Reply r;
    if (!P::parseReply(packet, &r))
        return;
    QVFS_FUZZ_CHECK(
        inside(r.message, packet) && inside(r.handle, packet) && inside(r.data, packet) && inside(r.names, packet));
    QVFS_FUZZ_CHECK(r.handle.size() <= qsizetype(P::MaxHandleLength));
    switch (r.type) {
    case P::Name: {
        QVFS_FUZZ_CHECK(qsizetype(r.nameCount) * qsizetype(P::MinNameRecordSize) <= r.names.size());
        P::NameReader names(r.names, r.nameCount);
        QByteArrayView name, longName;
        Attributes a;
        quint32 n = 0;
        while (names.next(&name, &longName, &a)) {
            QVFS_FUZZ_CHECK(inside(name, packet) && inside(longName, packet));
            checkAttrsRoundTrip(a);
            ++n;
        }
        QVFS_FUZZ_CHECK(n == r.nameCount);
        break;
    }
    case P::Attrs:
        checkAttrsRoundTrip(r.attrs);
        break;
    case P::ExtendedReply: {
        Limits l;
        const bool limits = P::parseLimits(r.data, &l);
        QVFS_FUZZ_CHECK(limits == (r.data.size() >= 32));
        StatVfs s;
        const bool statvfs = P::parseStatVfs(r.data, &s);
        QVFS_FUZZ_CHECK(statvfs == (r.data.size() >= 88));
        QList<QByteArray> users, groups;
        if (P::parseUserGroupNames(r.data, 2, 1, &users, &groups))
            QVFS_FUZZ_CHECK(users.size() == 2 && groups.size() == 1);
        break;
    }
    default:
        break;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    QvfsFuzz::Pieces pieces(data, size);
    P::InputBuffer in(ReadSize);
    QByteArrayView piece;
    bool bare = false;
    bool malformed = false;
    while (pieces.next(&piece, &bare)) {
        if (bare) {
            const QByteArray exact = piece.toByteArray(); // exact size: overreads are seen
            onePacket(exact);
            continue;
        }
        if (malformed)
            continue; // the engine drops the connection here
        qsizetype left = piece.size();
        const char *p = piece.data();
        while (left > 0) {
            qsizetype room = 0;
            char *dst = in.writeSpace(&room);
            QVFS_FUZZ_CHECK(room >= 1);
            const qsizetype n = qMin(room, left);
            std::memcpy(dst, p, size_t(n));
            in.commit(n);
            p += n;
            left -= n;
            QByteArrayView packet;
            P::InputBuffer::Next next;
            while ((next = in.next(&packet)) == P::InputBuffer::Next::Packet) {
                QVFS_FUZZ_CHECK(packet.size() >= 1 && packet.size() <= qsizetype(P::MaxIncomingPacket));
                onePacket(packet);
            }
            if (next == P::InputBuffer::Next::Malformed) {
                malformed = true;
                break;
            }
            QVFS_FUZZ_CHECK(in.buffered() <= qsizetype(P::MaxIncomingPacket) + 4 + ReadSize);
        }
    }
    return 0;
}
