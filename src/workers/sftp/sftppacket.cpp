// SPDX-License-Identifier: LGPL-2.1-or-later
#include "sftppacket_p.h"

#include <cstring>

namespace Qvfs::Sftp::Packet
{

namespace
{

void putU32(char *p, quint32 v)
{
    p[0] = char(v >> 24);
    p[1] = char(v >> 16);
    p[2] = char(v >> 8);
    p[3] = char(v);
}

quint32 getU32(const char *p)
{
    const auto *u = reinterpret_cast<const uchar *>(p);
    return (quint32(u[0]) << 24) | (quint32(u[1]) << 16) | (quint32(u[2]) << 8) | quint32(u[3]);
}

constexpr quint32 MaxExtensionField = 4096;
constexpr int MaxExtensions = 256;

} // namespace

// ---------------------------------------------------------------- Writer

void Writer::begin(Type type)
{
    m_start = m_out.size();
    m_out.append(4, '\0');
    m_out.append(char(type));
}

void Writer::begin(Type type, quint32 id)
{
    begin(type);
    u32(id);
}

void Writer::beginExtended(quint32 id, QByteArrayView name)
{
    begin(Extended, id);
    string(name);
}

void Writer::u8(quint8 v)
{
    m_out.append(char(v));
}

void Writer::u32(quint32 v)
{
    char b[4];
    putU32(b, v);
    m_out.append(b, 4);
}

void Writer::u64(quint64 v)
{
    u32(quint32(v >> 32));
    u32(quint32(v));
}

void Writer::string(QByteArrayView s)
{
    u32(quint32(s.size()));
    m_out.append(s.data(), s.size());
}

void Writer::attrs(const Attributes &a)
{
    // Only the flags this side knows how to encode; extended pairs are sent as given.
    quint32 flags = a.flags
        & (Attributes::Size | Attributes::UidGid | Attributes::Permissions | Attributes::AccessModTime
            | Attributes::Extended);
    if (a.extended.isEmpty())
        flags &= ~quint32(Attributes::Extended);
    u32(flags);
    if (flags & Attributes::Size)
        u64(a.size);
    if (flags & Attributes::UidGid) {
        u32(a.uid);
        u32(a.gid);
    }
    if (flags & Attributes::Permissions)
        u32(a.permissions);
    if (flags & Attributes::AccessModTime) {
        u32(a.atime);
        u32(a.mtime);
    }
    if (flags & Attributes::Extended) {
        u32(quint32(a.extended.size()));
        for (const auto &[type, data] : a.extended) {
            string(type);
            string(data);
        }
    }
}

char *Writer::beginString(qsizetype capacity)
{
    m_stringStart = m_out.size();
    m_out.resize(m_stringStart + 4 + capacity);
    return m_out.data() + m_stringStart + 4;
}

void Writer::commitString(qsizetype used)
{
    putU32(m_out.data() + m_stringStart, quint32(used));
    m_out.resize(m_stringStart + 4 + used);
    m_stringStart = -1;
}

void Writer::end()
{
    putU32(m_out.data() + m_start, quint32(m_out.size() - m_start - 4));
    m_start = -1;
}

// ---------------------------------------------------------------- Reader

bool Reader::u8(quint8 *v)
{
    if (!m_ok || m_end - m_p < 1)
        return fail();
    *v = quint8(*m_p++);
    return true;
}

bool Reader::u32(quint32 *v)
{
    if (!m_ok || m_end - m_p < 4)
        return fail();
    *v = getU32(m_p);
    m_p += 4;
    return true;
}

bool Reader::u64(quint64 *v)
{
    quint32 hi = 0, lo = 0;
    if (!u32(&hi) || !u32(&lo))
        return false;
    *v = (quint64(hi) << 32) | lo;
    return true;
}

bool Reader::string(QByteArrayView *s, quint32 maxLength)
{
    quint32 n = 0;
    if (!u32(&n))
        return false;
    if (n > maxLength || qsizetype(n) > m_end - m_p)
        return fail();
    *s = QByteArrayView(m_p, qsizetype(n));
    m_p += n;
    return true;
}

bool Reader::attrs(Attributes *a)
{
    *a = Attributes();
    if (!u32(&a->flags))
        return false;
    if (a->has(Attributes::Size) && !u64(&a->size))
        return false;
    if (a->has(Attributes::UidGid) && (!u32(&a->uid) || !u32(&a->gid)))
        return false;
    if (a->has(Attributes::Permissions) && !u32(&a->permissions))
        return false;
    if (a->has(Attributes::AccessModTime) && (!u32(&a->atime) || !u32(&a->mtime)))
        return false;
    if (a->has(Attributes::Extended)) {
        quint32 count = 0;
        if (!u32(&count))
            return false;
        // each pair takes at least two length fields
        if (count > quint32(remaining() / 8))
            return fail();
        for (quint32 i = 0; i < count; ++i) {
            QByteArrayView type, data;
            if (!string(&type) || !string(&data))
                return false;
            a->extended.append({ type.toByteArray(), data.toByteArray() });
        }
    }
    return true;
}

QByteArrayView Reader::rest()
{
    if (!m_ok)
        return {};
    const QByteArrayView r(m_p, m_end - m_p);
    m_p = m_end;
    return r;
}

// ---------------------------------------------------------------- InputBuffer

InputBuffer::InputBuffer(qsizetype readSize)
    : m_readSize(readSize)
{ }

char *InputBuffer::writeSpace(qsizetype *room)
{
    compact();
    if (m_buf.size() < m_end + m_readSize)
        m_buf.resize(m_end + m_readSize);
    *room = m_buf.size() - m_end;
    return m_buf.data() + m_end;
}

void InputBuffer::commit(qsizetype n)
{
    m_end += n;
}

InputBuffer::Next InputBuffer::next(QByteArrayView *packet)
{
    const qsizetype avail = m_end - m_begin;
    if (avail < 4)
        return Next::NeedMore;
    const quint32 len = getU32(m_buf.constData() + m_begin);
    if (len == 0 || len > MaxIncomingPacket)
        return Next::Malformed;
    if (avail - 4 < qsizetype(len))
        return Next::NeedMore;
    *packet = QByteArrayView(m_buf.constData() + m_begin + 4, qsizetype(len));
    m_begin += 4 + len;
    return Next::Packet;
}

void InputBuffer::compact()
{
    if (m_begin == 0)
        return;
    const qsizetype n = m_end - m_begin;
    if (n > 0)
        std::memmove(m_buf.data(), m_buf.constData() + m_begin, size_t(n));
    m_begin = 0;
    m_end = n;
    // Give back a buffer that grew for one large packet.
    const qsizetype keep = m_readSize + 64 * 1024;
    if (m_buf.size() > 2 * keep && n < keep) {
        m_buf.resize(keep);
        m_buf.squeeze();
    }
}

// ---------------------------------------------------------------- replies

bool parseReply(QByteArrayView packet, Reply *out)
{
    *out = Reply();
    Reader r(packet);
    if (!r.u8(&out->type) || !r.u32(&out->id))
        return false;
    switch (out->type) {
    case Status:
        if (!r.u32(&out->status))
            return false;
        // Version 3 servers may end the packet after the code.
        if (r.atEnd())
            return true;
        {
            QByteArrayView lang;
            if (!r.string(&out->message))
                return false;
            if (r.atEnd())
                return true;
            return r.string(&lang) && r.atEnd();
        }
    case Handle:
        return r.string(&out->handle, MaxHandleLength) && r.atEnd();
    case Data:
        return r.string(&out->data) && r.atEnd();
    case Attrs:
        return r.attrs(&out->attrs) && r.atEnd();
    case ExtendedReply:
        out->data = r.rest();
        return true;
    case Name: {
        if (!r.u32(&out->nameCount))
            return false;
        if (out->nameCount > quint32(r.remaining() / MinNameRecordSize))
            return false;
        out->names = QByteArrayView(packet.data() + (packet.size() - r.remaining()), r.remaining());
        // Validate every record now, so that NameReader cannot fail later.
        Attributes a;
        for (quint32 i = 0; i < out->nameCount; ++i) {
            QByteArrayView name, longName;
            if (!r.string(&name) || !r.string(&longName) || !r.attrs(&a))
                return false;
        }
        return r.atEnd();
    }
    default:
        return false;
    }
}

bool NameReader::next(QByteArrayView *name, QByteArrayView *longName, Attributes *attrs)
{
    if (m_left == 0)
        return false;
    --m_left;
    return m_reader.string(name) && m_reader.string(longName) && m_reader.attrs(attrs);
}

bool VersionInfo::hasExtension(QByteArrayView name, QByteArrayView version) const
{
    for (const auto &[n, v] : extensions) {
        if (n == name && v == version)
            return true;
    }
    return false;
}

bool parseVersion(QByteArrayView packet, VersionInfo *out)
{
    *out = VersionInfo();
    Reader r(packet);
    quint8 type = 0;
    if (!r.u8(&type) || type != Version || !r.u32(&out->version))
        return false;
    while (!r.atEnd()) {
        if (out->extensions.size() >= MaxExtensions)
            return false;
        QByteArrayView name, version;
        if (!r.string(&name, MaxExtensionField) || !r.string(&version, MaxExtensionField))
            return false;
        out->extensions.append({ name.toByteArray(), version.toByteArray() });
    }
    return r.ok();
}

bool parseLimits(QByteArrayView body, Limits *out)
{
    Reader r(body);
    Limits l;
    if (!r.u64(&l.maxPacketLength) || !r.u64(&l.maxReadLength) || !r.u64(&l.maxWriteLength)
        || !r.u64(&l.maxOpenHandles))
        return false;
    *out = l;
    return true;
}

bool parseStatVfs(QByteArrayView body, StatVfs *out)
{
    Reader r(body);
    StatVfs s;
    if (!r.u64(&s.blockSize) || !r.u64(&s.fragmentSize) || !r.u64(&s.blocks) || !r.u64(&s.blocksFree)
        || !r.u64(&s.blocksAvailable) || !r.u64(&s.files) || !r.u64(&s.filesFree) || !r.u64(&s.filesAvailable)
        || !r.u64(&s.fsid) || !r.u64(&s.flag) || !r.u64(&s.nameMax))
        return false;
    *out = s;
    return true;
}

bool parseUserGroupNames(
    QByteArrayView body, qsizetype userCount, qsizetype groupCount, QList<QByteArray> *users, QList<QByteArray> *groups)
{
    Reader r(body);
    QByteArrayView userBlock, groupBlock;
    if (!r.string(&userBlock) || !r.string(&groupBlock) || !r.atEnd())
        return false;
    const auto names = [](QByteArrayView block, qsizetype count, QList<QByteArray> *out) {
        Reader b(block);
        QList<QByteArray> list;
        list.reserve(qMin<qsizetype>(count, block.size() / 4));
        for (qsizetype i = 0; i < count; ++i) {
            QByteArrayView n;
            if (!b.string(&n, 256))
                return false;
            list.append(n.toByteArray());
        }
        if (!b.atEnd())
            return false;
        *out = std::move(list);
        return true;
    };
    QList<QByteArray> u, g;
    if (!names(userBlock, userCount, &u) || !names(groupBlock, groupCount, &g))
        return false;
    *users = std::move(u);
    *groups = std::move(g);
    return true;
}

const char *statusName(quint32 status)
{
    static const char *const names[] = {
        "OK",
        "EOF",
        "NO_SUCH_FILE",
        "PERMISSION_DENIED",
        "FAILURE",
        "BAD_MESSAGE",
        "NO_CONNECTION",
        "CONNECTION_LOST",
        "OP_UNSUPPORTED",
        "INVALID_HANDLE",
        "NO_SUCH_PATH",
        "FILE_ALREADY_EXISTS",
        "WRITE_PROTECT",
        "NO_MEDIA",
        "NO_SPACE_ON_FILESYSTEM",
        "QUOTA_EXCEEDED",
        "UNKNOWN_PRINCIPAL",
        "LOCK_CONFLICT",
        "DIR_NOT_EMPTY",
        "NOT_A_DIRECTORY",
        "INVALID_FILENAME",
        "LINK_LOOP",
        "CANNOT_DELETE",
        "INVALID_PARAMETER",
        "FILE_IS_A_DIRECTORY",
    };
    return status < sizeof names / sizeof names[0] ? names[status] : "UNKNOWN";
}

} // namespace Qvfs::Sftp::Packet
