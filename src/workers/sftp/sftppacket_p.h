// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SFTPPACKET_P_H
#define QVFS_SFTPPACKET_P_H

#include "sftptypes.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

#include <utility>

/*!
 * SFTP version 3 packets (draft-ietf-secsh-filexfer-02) and OpenSSH's extensions
 * (OpenSSH's PROTOCOL, section 4): building requests, and reading the server's bytes.
 *
 * Every byte from the server is foreign. The reading side checks each length against
 * what is left of the packet and against a maximum before using it, never allocates
 * from a length it has not checked (a count of records is bounded by the smallest size
 * such a record can have), and hands out views into the packet rather than copies.
 * Names and handles are raw bytes.
 *
 * Internal to the sftp engine; fuzzed by fuzz/fuzz_sftppacket.cpp.
 * \since 0.1
 */
namespace Qvfs::Sftp::Packet
{

/*! Message types (draft section 3, 7; extended 200/201). */
enum Type : quint8 {
    Init = 1,
    Version = 2,
    Open = 3,
    Close = 4,
    Read = 5,
    Write = 6,
    Lstat = 7,
    Fstat = 8,
    Setstat = 9,
    Fsetstat = 10,
    Opendir = 11,
    Readdir = 12,
    Remove = 13,
    Mkdir = 14,
    Rmdir = 15,
    Realpath = 16,
    Stat = 17,
    Rename = 18,
    Readlink = 19,
    Symlink = 20,
    Status = 101,
    Handle = 102,
    Data = 103,
    Name = 104,
    Attrs = 105,
    Extended = 200,
    ExtendedReply = 201,
};

/*!
 * Status codes. 0–8 are version 3's; the later drafts' codes (which some servers send
 * to version 3 clients anyway) are listed for the error mapping.
 */
enum StatusCode : quint32 {
    Ok = 0,
    Eof = 1,
    NoSuchFile = 2,
    PermissionDenied = 3,
    Failure = 4,
    BadMessage = 5,
    NoConnection = 6,
    ConnectionLost = 7,
    OpUnsupported = 8,
    InvalidHandle = 9,
    NoSuchPath = 10,
    FileAlreadyExists = 11,
    WriteProtect = 12,
    NoMedia = 13,
    NoSpaceOnFilesystem = 14,
    QuotaExceeded = 15,
    UnknownPrincipal = 16,
    LockConflict = 17,
    DirNotEmpty = 18,
    NotADirectory = 19,
    InvalidFilename = 20,
    LinkLoop = 21,
    CannotDelete = 22,
    InvalidParameter = 23,
    FileIsADirectory = 24,
};

/*! SSH_FXF_* flags of OPEN. */
enum OpenFlag : quint32 {
    OpenRead = 0x01,
    OpenWrite = 0x02,
    OpenAppend = 0x04,
    OpenCreate = 0x08,
    OpenTruncate = 0x10,
    OpenExclusive = 0x20,
};

constexpr quint32 ProtocolVersion = 3;
/*! The largest packet accepted from a server (its length field, without the field). */
constexpr quint32 MaxIncomingPacket = 1024 * 1024;
/*! Handles are at most 256 bytes (draft section 6.2). */
constexpr quint32 MaxHandleLength = 256;
/*! The smallest ATTRS: the flags word. */
constexpr quint32 MinAttrsSize = 4;
/*! The smallest NAME record: two empty strings and empty ATTRS. */
constexpr quint32 MinNameRecordSize = 4 + 4 + MinAttrsSize;
/*! Per-packet overhead of a WRITE besides handle and data: length, type, id, offset, data length. */
constexpr quint32 WriteOverhead = 4 + 1 + 4 + 8 + 4;
/*! Per-packet overhead of a DATA reply besides the data: length, type, id, data length. */
constexpr quint32 DataOverhead = 4 + 1 + 4 + 4;

/*!
 * Appends packets to a byte array. Each packet is begin() … end(); end() fills in the
 * length. Strings are written as given (raw bytes).
 */
class Writer
{
public:
    explicit Writer(QByteArray &out)
        : m_out(out)
    { }

    /*! Starts a packet of \a type (INIT has no id: use begin(Init) then u32(version)). */
    void begin(Type type);
    /*! Starts a request of \a type with request \a id. */
    void begin(Type type, quint32 id);
    /*! Starts an SSH_FXP_EXTENDED request named \a name. */
    void beginExtended(quint32 id, QByteArrayView name);
    void u8(quint8 v);
    void u32(quint32 v);
    void u64(quint64 v);
    void string(QByteArrayView s);
    void attrs(const Attributes &a);
    /*!
     * Reserves \a capacity bytes of string data (a u32 length then the data) for the
     * caller to fill through the returned pointer; commitString() then sets the length
     * actually used. Valid until the next call on this writer.
     */
    char *beginString(qsizetype capacity);
    void commitString(qsizetype used);
    /*! Finishes the packet: writes its length. */
    void end();

    qsizetype packetStart() const { return m_start; }

private:
    QByteArray &m_out;
    qsizetype m_start = -1;
    qsizetype m_stringStart = -1;
};

/*!
 * Reads a packet's fields. Any read past the end, or a string longer than allowed,
 * fails and makes every later read fail too (check ok() once at the end, or each call).
 */
class Reader
{
public:
    explicit Reader(QByteArrayView data)
        : m_p(data.data())
        , m_end(data.data() + data.size())
    { }

    bool u8(quint8 *v);
    bool u32(quint32 *v);
    bool u64(quint64 *v);
    /*! A length-prefixed string of at most \a maxLength bytes, as a view into the packet. */
    bool string(QByteArrayView *s, quint32 maxLength = MaxIncomingPacket);
    /*! ATTRS; extended pairs are copied (they are rare), bounded by the packet. */
    bool attrs(Attributes *a);
    /*! The rest of the packet as a view; the reader is then at the end. */
    QByteArrayView rest();

    qsizetype remaining() const { return m_ok ? m_end - m_p : 0; }
    bool atEnd() const { return m_ok && m_p == m_end; }
    bool ok() const { return m_ok; }
    bool fail()
    {
        m_ok = false;
        return false;
    }

private:
    const char *m_p;
    const char *m_end;
    bool m_ok = true;
};

/*!
 * Collects the bytes read from the server's stream and cuts them into packets.
 *
 * read into writeSpace(), commit(), then next() until it says NeedMore; the views it
 * returns stay valid until the next writeSpace() or compact(). A length field over
 * MaxIncomingPacket (or zero) is Malformed: the stream cannot be resynchronised.
 * Memory is bounded by MaxIncomingPacket plus one read.
 */
class InputBuffer
{
public:
    enum class Next { Packet, NeedMore, Malformed };

    explicit InputBuffer(qsizetype readSize = 256 * 1024);
    /*! Room for at least readSize bytes at the end; returns where to read to and the room. */
    char *writeSpace(qsizetype *room);
    void commit(qsizetype n);
    /*! The next complete packet (type byte and payload, without the length field). */
    Next next(QByteArrayView *packet);
    /*! Drops the packets already returned (moves the partial one to the front). */
    void compact();
    qsizetype buffered() const { return m_end - m_begin; }
    /*! The bytes received and not yet returned as packets (for error messages). */
    QByteArrayView pending() const { return QByteArrayView(m_buf.constData() + m_begin, m_end - m_begin); }

private:
    QByteArray m_buf;
    qsizetype m_begin = 0;
    qsizetype m_end = 0;
    qsizetype m_readSize;
};

/*!
 * A server's reply, parsed and validated. Views point into the packet.
 *
 * For NAME, every record has been checked already: iterate them with NameReader,
 * which then cannot fail.
 */
struct Reply
{
    quint8 type = 0;
    quint32 id = 0;
    quint32 status = 0; //!< STATUS
    QByteArrayView message; //!< STATUS: the server's text (UTF-8 by the draft, unchecked)
    QByteArrayView handle; //!< HANDLE
    QByteArrayView data; //!< DATA; EXTENDED_REPLY: the reply's body
    Attributes attrs; //!< ATTRS
    quint32 nameCount = 0; //!< NAME
    QByteArrayView names; //!< NAME: the records
};

/*!
 * Parses \a packet (type byte first) as a reply to a request. Fails on an unknown type,
 * a truncated or oversized field, a handle over MaxHandleLength, a NAME count larger
 * than the packet can hold, or bytes left over (except in STATUS, where version 3
 * servers may omit the message and language tag, and EXTENDED_REPLY, whose body is
 * opaque).
 */
bool parseReply(QByteArrayView packet, Reply *out);

/*! Iterates the records of a validated NAME reply. */
class NameReader
{
public:
    NameReader(QByteArrayView names, quint32 count)
        : m_reader(names)
        , m_left(count)
    { }
    /*! The next record, or false at the end. \a attrs is overwritten. */
    bool next(QByteArrayView *name, QByteArrayView *longName, Attributes *attrs);

private:
    Reader m_reader;
    quint32 m_left;
};

/*! The server's hello: its version and the extensions it announces (name, version). */
struct VersionInfo
{
    quint32 version = 0;
    QList<std::pair<QByteArray, QByteArray>> extensions;
    /*! Whether \a name is announced with version \a version. */
    bool hasExtension(QByteArrayView name, QByteArrayView version) const;
};

/*!
 * Parses a VERSION packet (type byte first). At most 256 extensions, each name and
 * version at most 4 KiB; a trailing partial pair fails.
 */
bool parseVersion(QByteArrayView packet, VersionInfo *out);
/*! Parses the body of limits@openssh.com's reply (four u64). */
bool parseLimits(QByteArrayView body, Limits *out);
/*! Parses the body of statvfs@openssh.com's reply (eleven u64). */
bool parseStatVfs(QByteArrayView body, StatVfs *out);

/*!
 * Parses the body of users-groups-by-id@openssh.com's reply: two strings, each holding
 * one string per id asked for (\a userCount and \a groupCount of them; empty: no name),
 * each name at most 256 bytes. Fails on any other shape.
 */
bool parseUserGroupNames(QByteArrayView body, qsizetype userCount, qsizetype groupCount, QList<QByteArray> *users,
    QList<QByteArray> *groups);

/*! The symbolic name of a status code, for logs ("NO_SUCH_FILE"). */
const char *statusName(quint32 status);

} // namespace Qvfs::Sftp::Packet

#endif
