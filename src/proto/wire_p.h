// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_WIRE_P_H
#define QVFS_WIRE_P_H

// The wire format shared by the application and the workers. Internal: not installed.

#include <QByteArray>
#include <QByteArrayView>
#include <QtEndian>
#include <QtGlobal>

#include <cstring>

namespace Qvfs::Wire
{

/*! Bumped whenever the wire format changes incompatibly. */
constexpr quint32 ProtocolVersion = 2;

/*! Frame header: length (payload bytes), message type, flags, request id; little endian. */
constexpr int HeaderSize = 12;
/*! Largest payload either side accepts. Batches are flushed well below this. */
constexpr quint32 MaxPayload = 1024 * 1024;

enum class Msg : quint16 {
    // both directions
    Hello = 1, //!< payload: varint version, options block (worker: pid, protocol)
    // application -> worker
    Command = 10, //!< payload: varint command, urls, options block (see requests_p.h)
    Kill = 11, //!< stop the request (request id); the worker answers with Finished/Error
    Suspend = 12, //!< stop sending data for the request until Resume
    Resume = 13,
    Answer = 14, //!< answer to a Question: options block (same request id; Keys::QuestionId inside)
    PutData = 15, //!< a chunk of data for a put request
    PutEnd = 16, //!< no more data for the put request
    // application -> worker: positional operations on an open file (Command::Open),
    // under the open request's id. Each carries an operation id chosen by the
    // application; the worker handles them in order and answers each (FileData for a
    // read, FileDone for the others). Closing is answered by Finished (or Error).
    FileRead = 20, //!< varint op, varint offset, varint length (at most MaxFileRead)
    /*!
     * The data (at most FileChunk bytes), then a trailer of FileWriteTrailer bytes:
     * offset (int64, -1: append at the end), op (uint32), little endian. The data comes
     * first so that it is handed on without a copy.
     */
    FileWrite = 21,
    FileTruncate = 22, //!< varint op, varint length
    FileSize = 23, //!< varint op: report the current size
    FileClose = 24, //!< empty: close the file; the request then ends
    // worker -> application
    Entries = 30, //!< a listing batch (see entrycodec_p.h); a stat result is a batch of one
    Data = 31, //!< a chunk of a get request
    DataRequest = 32, //!< the worker wants more PutData
    Progress = 33, //!< options block: totals and processed amounts
    MetaData = 34, //!< options block: mimetype, final url, ...
    Question = 35, //!< options block: Keys::QuestionId, Keys::Kind, the question's items
    Heartbeat = 36, //!< the worker is alive and busy
    Finished = 37, //!< the request succeeded; options block with results
    Error = 38, //!< the request failed: varint code, varint argc, argc strings
    Redirection = 39, //!< the request now works on another URL: the URL, fully encoded
    Item = 40, //!< a copy's per-file event: varint CopyItemEvent, source URL, destination URL
    LeftOut = 41, //!< an entry of a tree left out (unreadable, skipped): URL, varint error code
    /*!
     * A watch's report besides entries (see WatchChanges in requests_p.h): the end of a
     * listing, the start of a new one, the commit of a change batch (removed names and
     * renames; the Entries frames sent since the last report are its new or changed
     * entries), the folder gone or moved.
     */
    Changes = 42,
    FileOpened = 45, //!< an open request's file is open: options block (size, MIME type, what it can do)
    /*!
     * A piece of a FileRead's answer: the data (at most FileChunk bytes), then a trailer
     * of FileDataTrailer bytes: offset (int64), op (uint32), flags (uint8; bit 0: the
     * read's last piece), little endian. A read's pieces come in order; a last piece
     * ending before the length asked for means the end of the file was reached.
     */
    FileData = 46,
    FileDone = 47, //!< varint op, svarint offset, svarint value: bytes written, new length or size
};

enum class Command : quint32 {
    ListDir = 1,
    ListRecursive = 2,
    Stat = 3,
    Mkdir = 4,
    Delete = 5,
    Rename = 6,
    Copy = 7,
    Get = 8,
    Put = 9,
    Symlink = 10,
    Chmod = 11,
    DirectorySize = 12,
    Special = 13, //!< protocol-specific, described by its options
    SetModificationTime = 14,
    CopyToFile = 15, //!< the worker copies its URL to a local file itself
    CopyFromFile = 16, //!< the worker copies a local file to its URL itself
    Watch = 17, //!< list a folder, then report its changes until killed (WatchRequest)
    /*!
     * Open a file for positional reads and writes (OpenRequest): the worker answers
     * FileOpened, then serves File* messages until FileClose or Kill.
     */
    Open = 18,
    FreeSpace = 19, //!< the size and free space of the filesystem holding a URL (FreeSpaceRequest)
    Trash = 20, //!< move entries into the trash or back out (TrashRequest)
};

/*! Data bytes in one FileData or FileWrite frame at most (well below MaxPayload). */
constexpr qint64 FileChunk = 256 * 1024;
/*! Bytes one FileRead asks for at most; the application splits or clamps longer reads. */
constexpr qint64 MaxFileRead = 16 * 1024 * 1024;
constexpr int FileDataTrailer = 13;
constexpr int FileWriteTrailer = 12;

struct Header
{
    quint32 length = 0;
    quint16 type = 0;
    quint16 flags = 0;
    quint32 requestId = 0;
};

inline void putHeader(char *out, const Header &h) noexcept
{
    const quint32 v[3] = { qToLittleEndian(h.length), qToLittleEndian(quint32(h.type) | (quint32(h.flags) << 16)),
        qToLittleEndian(h.requestId) };
    std::memcpy(out, v, HeaderSize);
}

inline Header getHeader(const char *in) noexcept
{
    quint32 v[3];
    std::memcpy(v, in, HeaderSize);
    Header h;
    h.length = qFromLittleEndian(v[0]);
    const quint32 tf = qFromLittleEndian(v[1]);
    h.type = quint16(tf & 0xffff);
    h.flags = quint16(tf >> 16);
    h.requestId = qFromLittleEndian(v[2]);
    return h;
}

// ---- varints (LEB128; signed values zigzag-encoded) ----

inline quint64 zigzag(qint64 v) noexcept
{
    return (quint64(v) << 1) ^ quint64(v >> 63);
}
inline qint64 unzigzag(quint64 v) noexcept
{
    return qint64(v >> 1) ^ -qint64(v & 1);
}

/*! Writes \a v at \a p (room for 10 bytes needed); returns the end. */
inline char *putVarint(char *p, quint64 v) noexcept
{
    while (v >= 0x80) {
        *p++ = char(v | 0x80);
        v >>= 7;
    }
    *p++ = char(v);
    return p;
}

inline void appendVarint(QByteArray &out, quint64 v)
{
    char tmp[10];
    const char *e = putVarint(tmp, v);
    out.append(tmp, e - tmp);
}

inline void appendBytes(QByteArray &out, QByteArrayView b)
{
    appendVarint(out, quint64(b.size()));
    out.append(b.data(), b.size());
}

/*!
 * A bounds-checked reader over foreign bytes. Every read checks the remaining length;
 * after the first failure ok() is false and every later read returns zero/empty.
 */
class Reader
{
public:
    Reader() = default;
    explicit Reader(QByteArrayView data) noexcept
        : m_p(data.data())
        , m_end(data.data() + data.size())
    { }
    Reader(const char *p, const char *end) noexcept
        : m_p(p)
        , m_end(end)
    { }

    bool ok() const noexcept { return m_ok; }
    bool atEnd() const noexcept { return m_p == m_end; }
    qsizetype remaining() const noexcept { return m_end - m_p; }
    const char *pos() const noexcept { return m_p; }
    void fail() noexcept
    {
        m_ok = false;
        m_p = m_end;
    }

    quint64 varint() noexcept
    {
        quint64 v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_p == m_end) {
                fail();
                return 0;
            }
            const quint8 b = quint8(*m_p++);
            v |= quint64(b & 0x7f) << shift;
            if (!(b & 0x80)) {
                if (shift == 63 && b > 1) { // more than 64 bits
                    fail();
                    return 0;
                }
                return v;
            }
        }
        fail();
        return 0;
    }
    /*! A varint that must be <= \a max. */
    quint64 varint(quint64 max) noexcept
    {
        const quint64 v = varint();
        if (v > max) {
            fail();
            return 0;
        }
        return v;
    }
    qint64 svarint() noexcept { return unzigzag(varint()); }
    quint8 byte() noexcept
    {
        if (m_p == m_end) {
            fail();
            return 0;
        }
        return quint8(*m_p++);
    }
    /*! A length-prefixed byte string, as a view into the input. */
    QByteArrayView bytes(qsizetype maxLength = MaxPayload) noexcept
    {
        const quint64 n = varint();
        if (!m_ok || n > quint64(remaining()) || n > quint64(maxLength)) {
            fail();
            return {};
        }
        QByteArrayView r(m_p, qsizetype(n));
        m_p += n;
        return r;
    }
    /*! Skips a length-prefixed byte string. */
    void skipBytes() noexcept { (void)bytes(); }

private:
    const char *m_p = nullptr;
    const char *m_end = nullptr;
    bool m_ok = true;
};

} // namespace Qvfs::Wire

#endif
