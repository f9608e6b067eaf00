// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_PROPFINDPARSER_P_H
#define QVFS_PROPFINDPARSER_P_H

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>

#include <functional>
#include <optional>

namespace Qvfs::Http
{

/*!
 * One <response> of a WebDAV multistatus reply, as PropfindParser reports it.
 *
 * Only properties from a propstat block with a 2xx status are taken; a 404 propstat
 * (a property the server does not have) leaves its fields unknown.
 */
struct DavEntry
{
    /*!
     * The name as raw bytes: the last segment of the percent-decoded href, byte exact
     * (also when it is not UTF-8). Relative to the collection in Mode::Children; in
     * Mode::All the whole decoded path.
     */
    QByteArray name;
    QByteArray href; //!< the href as the server sent it (XML-unescaped, still percent-encoded)
    QByteArray path; //!< the percent-decoded path of href (no scheme, host, query)
    bool isSelf = false; //!< the collection the request was about (Depth 1), or the Depth 0 entry
    bool isCollection = false; //!< resourcetype holds a DAV:collection
    bool hasProperties = false; //!< at least one propstat block with a 2xx status
    int status = 0; //!< a status given for the whole response (DELETE/COPY/MOVE errors), else 0
    qint64 size = -1; //!< getcontentlength, -1 if unknown
    std::optional<qint64> mtime; //!< getlastmodified, seconds since the epoch
    QByteArray contentType; //!< getcontenttype in lower case without parameters; "inode/directory" for collections
    QByteArray etag; //!< getetag as sent, quotes and W/ included
    QByteArray displayName; //!< displayname (UTF-8), as the server sent it; never the entry's name
    /*!
     * quota-available-bytes (RFC 4331): what the user may still store there; -1 when not
     * sent (asked for only with DavProperty::QuotaAvailableBytes).
     */
    qint64 quotaAvailable = -1;
    /*! quota-used-bytes (RFC 4331): what the user's quota counts as used there; -1 when not sent. */
    qint64 quotaUsed = -1;

    void clear();
};

/*!
 * The properties a PROPFIND asks for (propfindRequestBody()).
 */
enum class DavProperty : unsigned {
    ResourceType = 1,
    ContentLength = 2,
    LastModified = 4,
    ContentType = 8,
    ETag = 16,
    /*!
     * Not asked for by default: nginx's dav-ext module sends the file name raw there, so
     * a name that is not UTF-8 makes the whole reply ill-formed XML.
     */
    DisplayName = 32,
    /*! RFC 4331's quota-available-bytes; not asked for by default (only a free-space query needs it). */
    QuotaAvailableBytes = 64,
    /*! RFC 4331's quota-used-bytes; not asked for by default. */
    QuotaUsedBytes = 128,
};
Q_DECLARE_FLAGS(DavProperties, DavProperty)
Q_DECLARE_OPERATORS_FOR_FLAGS(DavProperties)

/*! Resource type, size, modification time, content type and etag: what a listing needs. */
constexpr DavProperties defaultDavProperties = DavProperties(DavProperty::ResourceType) | DavProperty::ContentLength
    | DavProperty::LastModified | DavProperty::ContentType | DavProperty::ETag;

/*!
 * The body of a PROPFIND that asks for exactly \a props (never allprop: servers then send
 * everything they have, dead properties included).
 */
QByteArray propfindRequestBody(DavProperties props = defaultDavProperties);

/*!
 * An incremental parser of a WebDAV multistatus reply (RFC 4918 §13), fed as the body
 * arrives.
 *
 * Each addData() parses what it can and calls the handler once per complete <response>,
 * so the first entries of a long listing reach the caller while the rest is still on the
 * wire; nothing of an entry is kept once it has been handed over. Elements are matched
 * by namespace URI ("DAV:") and local name, so any prefix works; unknown properties and
 * elements are skipped.
 *
 * The XML is read in place, as UTF-8 bytes: only a token split between two chunks is
 * copied (up to its end), text is decoded straight into the entry's fields, and the
 * buffers of the entry are reused from one response to the next, so a long listing
 * costs no allocation per entry once the first few have been parsed (QXmlStreamReader,
 * used before, decoded every byte to UTF-16 and allocated its strings: 85% of the
 * worker's CPU in a 10,000-entry listing). What it accepts is
 * the XML 1.0 a multistatus reply needs: elements, attributes, namespace declarations,
 * character and the five predefined entity references, CDATA, comments, processing
 * instructions; it checks tags balance, names are declared, and the bytes are UTF-8
 * (another encoding declared in <?xml?> is not honoured: its non-ASCII bytes fail).
 *
 * Names come from the href: the path is percent-decoded into raw bytes and taken
 * relative to the requested collection, compared byte for byte after decoding (so "%FF"
 * and "%ff" agree). In Mode::Children the collection itself (the href equal to the
 * request path, with or without a trailing slash) is not reported as a child but kept
 * as self(); if the first response lies outside the request path (a server behind a
 * rewriting proxy) and is a collection, its path is taken as the collection's. An href
 * that is not a direct child, or whose last segment is not a safe name ('/', NUL, "."
 * or ".."), is skipped and counted in skipped(), and so is one outside the collection
 * (never named by its displayname: its properties are another resource's).
 *
 * Foreign input is bounded: element depth, the length of any text the parser keeps,
 * the number of responses, and the bytes held while waiting for the end of one token
 * (an endless attribute or text). A DTD or an unknown entity is an error (a
 * multistatus reply never needs one).
 */
class PropfindParser
{
public:
    /*! What to report. */
    enum class Mode {
        Children, //!< a Depth 1 listing: the members of the collection, the collection itself as self()
        Self, //!< a Depth 0 reply: the first response, named by the last segment of its path
        All, //!< every response, named by its whole decoded path (multistatus errors of DELETE/COPY/MOVE)
    };

    /*! Bounds on foreign input. */
    struct Limits
    {
        int maxDepth = 64; //!< nesting of elements
        qsizetype maxTextBytes = 64 * 1024; //!< one href, status or property value (UTF-8 bytes)
        qint64 maxEntries = 10'000'000; //!< responses in one reply
        qsizetype maxPendingBytes = 1024 * 1024; //!< bytes fed without one complete token
        int maxNamespaces = 256; //!< namespace declarations in scope at once
    };

    /*! Receives each entry; returns false to stop parsing (addData() then returns false). */
    using EntryHandler = std::function<bool(const DavEntry &)>;
    /*! Gets each member name that is no safe name ('/', "..", NUL ...): skipped, not reported as an entry. */
    using UnsafeNameHandler = std::function<void(QByteArrayView)>;
    void setUnsafeNameHandler(UnsafeNameHandler handler) { m_unsafe = std::move(handler); }

    /*!
     * \a requestPath is the path of the requested URL, percent-encoded as sent
     * (QUrl::path(QUrl::FullyEncoded)).
     */
    PropfindParser(QByteArrayView requestPath, Mode mode, EntryHandler handler, Limits limits);
    PropfindParser(QByteArrayView requestPath, Mode mode, EntryHandler handler);
    ~PropfindParser();
    PropfindParser(const PropfindParser &) = delete;
    PropfindParser &operator=(const PropfindParser &) = delete;

    /*!
     * Parses \a chunk, the next bytes of the body.
     * \return false after an error (see errorString()) or when the handler stopped; no
     *         entry is reported after that.
     */
    bool addData(QByteArrayView chunk);

    /*!
     * Ends the body.
     * \return true if the document was complete and well-formed and no error or stop
     *         came before.
     */
    bool finish();

    /*! Whether parsing failed (not when the handler stopped it). */
    bool hasError() const { return !m_error.isEmpty(); }
    /*! Whether the handler stopped parsing. */
    bool stopped() const { return m_stopped; }
    /*! A technical, untranslated description of the error, for logs. */
    QString errorString() const { return m_error; }
    /*! Entries handed to the handler. */
    qint64 entryCount() const { return m_reported; }
    /*! Responses skipped (no href, outside the collection, unsafe name, error status). */
    qint64 skippedCount() const { return m_skipped; }
    /*! Whether the collection itself was seen (Mode::Children) or the entry (Mode::Self). */
    bool haveSelf() const { return m_haveSelf; }
    /*! The collection itself (Mode::Children) or the single entry (Mode::Self). */
    const DavEntry &self() const { return m_self; }

private:
    enum class Kind : quint8;
    enum class Token : quint8 { Unknown, Text, Tag, Declaration, Comment, CData, Instruction };
    // the properties of one propstat block, taken when its status is 2xx
    struct Pending
    {
        DavEntry props; // size, mtime, contentType, etag, displayName, quota*
        bool isCollection = false;
        bool haveResourceType = false;
        int status = 200;
        void reset();
    };
    // a namespace declaration in scope: its prefix in m_prefixes, the element depth it belongs to
    struct Binding
    {
        qsizetype prefixStart = 0;
        int depth = 0;
        bool dav = false;
    };

    bool fail(const QString &why);
    bool notWellFormed(const char *why);
    bool classifyToken(QByteArrayView t);
    qsizetype scanToken(const char *p, qsizetype n);
    bool token(Token kind, QByteArrayView t);
    bool text(QByteArrayView t);
    bool tag(QByteArrayView t);
    bool decodeText(QByteArrayView raw, QByteArray *out, qsizetype limit);
    bool startElement(Kind k);
    bool endElement();
    bool finishResponse();
    Kind classify(Kind parent, bool dav, QByteArrayView local) const;
    bool nameFor(DavEntry &e);

    EntryHandler m_handler;
    UnsafeNameHandler m_unsafe;
    Limits m_limits;
    Mode m_mode;
    QByteArray m_collection; // decoded request path without trailing slashes
    bool m_firstResponse = true;
    QList<Kind> m_stack;
    QByteArray m_names; // the qualified names of the open elements, back to back
    QList<qsizetype> m_nameStarts;
    QByteArray m_prefixes; // the prefixes of m_bindings, back to back
    QList<Binding> m_bindings;
    QByteArray m_scratch; // an attribute value, decoded
    QByteArray m_text;
    bool m_capture = false;
    qsizetype m_captureDepth = 0; // the depth of the element whose text m_text takes (elements inside it too)
    DavEntry m_entry;
    Pending m_pending;
    bool m_haveHref = false;
    DavEntry m_self;
    bool m_haveSelf = false;
    qint64 m_responses = 0;
    qint64 m_reported = 0;
    qint64 m_skipped = 0;
    // the token being read: its kind, where the look for its end resumes, the state of that look
    QByteArray m_partial; // the bytes of a token split between chunks
    Token m_token = Token::Unknown;
    qsizetype m_scanFrom = 0;
    char m_quote = 0;
    quint8 m_run = 0;
    qint64 m_offset = 0; // body bytes before the current token
    int m_bomBytes = 0; // bytes of a UTF-8 byte order mark matched at the start
    bool m_started = false; // past the byte order mark (or its absence)
    bool m_rootSeen = false;
    bool m_stopped = false;
    bool m_done = false;
    QString m_error;
};

/*!
 * Returns the raw bytes of the path of \a href (an absolute URL, an absolute path or a
 * path relative to \a base, all percent-encoded): scheme and authority, query and
 * fragment removed, percent-decoded. \a base is a decoded path without trailing slash.
 */
QByteArray decodedHrefPath(QByteArrayView href, QByteArrayView base);
/*! decodedHrefPath() into \a out, reusing its buffer (no allocation once it is large enough). */
void decodeHrefPath(QByteArrayView href, QByteArrayView base, QByteArray *out);

/*!
 * Parses a status line "HTTP/1.1 404 Not Found".
 * \return the status code, or 0 if \a line is not a status line.
 */
int parseStatusLine(QByteArrayView line);

} // namespace Qvfs::Http

#endif
