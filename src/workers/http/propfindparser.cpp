// SPDX-License-Identifier: LGPL-2.1-or-later
#include "httpdate_p.h"
#include "propfindparser_p.h"
#include "url.h"

namespace Qvfs::Http
{

enum class PropfindParser::Kind : quint8 {
    Root, // the document, before the root element
    Multistatus,
    Response,
    Href,
    ResponseStatus,
    Propstat,
    PropstatStatus,
    Prop,
    ResourceType,
    Collection,
    ContentLength,
    LastModified,
    ContentType,
    ETag,
    DisplayName,
    QuotaAvailable,
    QuotaUsed,
    Other, // skipped, with everything inside
};

namespace
{

QByteArray trimmed(QByteArrayView v)
{
    return v.trimmed().toByteArray();
}

QByteArray stripTrailingSlashes(QByteArray p)
{
    while (p.endsWith('/'))
        p.chop(1);
    return p;
}

std::optional<qint64> parseLength(QByteArrayView v)
{
    v = v.trimmed();
    if (v.isEmpty() || v.size() > 18)
        return std::nullopt;
    qint64 n = 0;
    for (char c : v) {
        if (c < '0' || c > '9')
            return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return n;
}

QByteArray mimeOnly(QByteArrayView v)
{
    const qsizetype semi = v.indexOf(';');
    if (semi >= 0)
        v = v.first(semi);
    return v.trimmed().toByteArray().toLower();
}

} // namespace

void DavEntry::clear()
{
    name.clear();
    href.clear();
    path.clear();
    isSelf = false;
    isCollection = false;
    hasProperties = false;
    status = 0;
    size = -1;
    mtime.reset();
    contentType.clear();
    etag.clear();
    displayName.clear();
    quotaAvailable = -1;
    quotaUsed = -1;
}

QByteArray propfindRequestBody(DavProperties props)
{
    QByteArray b = QByteArrayLiteral("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
                                     "<D:propfind xmlns:D=\"DAV:\"><D:prop>");
    if (props & DavProperty::ResourceType)
        b += "<D:resourcetype/>";
    if (props & DavProperty::ContentLength)
        b += "<D:getcontentlength/>";
    if (props & DavProperty::LastModified)
        b += "<D:getlastmodified/>";
    if (props & DavProperty::ContentType)
        b += "<D:getcontenttype/>";
    if (props & DavProperty::ETag)
        b += "<D:getetag/>";
    if (props & DavProperty::DisplayName)
        b += "<D:displayname/>";
    if (props & DavProperty::QuotaAvailableBytes)
        b += "<D:quota-available-bytes/>";
    if (props & DavProperty::QuotaUsedBytes)
        b += "<D:quota-used-bytes/>";
    b += "</D:prop></D:propfind>\n";
    return b;
}

QByteArray decodedHrefPath(QByteArrayView href, QByteArrayView base)
{
    QByteArrayView h = href.trimmed();
    // scheme://authority: keep what follows the authority
    const qsizetype colon = h.indexOf(':');
    const qsizetype slash = h.indexOf('/');
    if (colon > 0 && (slash < 0 || colon < slash) && h.sliced(colon).startsWith("://")) {
        const QByteArrayView rest = h.sliced(colon + 3);
        const qsizetype pathStart = rest.indexOf('/');
        h = pathStart < 0 ? QByteArrayView("/") : rest.sliced(pathStart);
    }
    const qsizetype cut = [&] {
        const qsizetype q = h.indexOf('?');
        const qsizetype f = h.indexOf('#');
        if (q < 0)
            return f;
        return f < 0 ? q : qMin(q, f);
    }();
    if (cut >= 0)
        h = h.first(cut);
    QByteArray path = QByteArray::fromPercentEncoding(h.toByteArray());
    if (!path.startsWith('/')) {
        QByteArray abs = base.toByteArray();
        abs += '/';
        abs += path;
        path = abs;
    }
    return path;
}

int parseStatusLine(QByteArrayView line)
{
    line = line.trimmed();
    if (!line.startsWith("HTTP/"))
        return 0;
    const qsizetype sp = line.indexOf(' ');
    if (sp < 0 || line.size() < sp + 4)
        return 0;
    int code = 0;
    for (int i = 1; i <= 3; ++i) {
        const char c = line[sp + i];
        if (c < '0' || c > '9')
            return 0;
        code = code * 10 + (c - '0');
    }
    if (line.size() > sp + 4 && line[sp + 4] != ' ')
        return 0;
    return code >= 100 ? code : 0;
}

PropfindParser::PropfindParser(QByteArrayView requestPath, Mode mode, EntryHandler handler)
    : PropfindParser(requestPath, mode, std::move(handler), Limits())
{ }

PropfindParser::PropfindParser(QByteArrayView requestPath, Mode mode, EntryHandler handler, Limits limits)
    : m_handler(std::move(handler))
    , m_limits(limits)
    , m_mode(mode)
{
    m_collection = stripTrailingSlashes(decodedHrefPath(requestPath, ""));
    m_reader.setNamespaceProcessing(true);
    m_stack.reserve(16);
    m_stack.append(Kind::Root);
}

PropfindParser::~PropfindParser() = default;

bool PropfindParser::fail(const QString &why)
{
    if (m_error.isEmpty())
        m_error = why;
    return false;
}

bool PropfindParser::addData(QByteArrayView chunk)
{
    if (hasError() || m_stopped)
        return false;
    if (chunk.isEmpty())
        return true;
    m_reader.addData(chunk.toByteArray());
    m_unconsumed += chunk.size();
    return run();
}

bool PropfindParser::finish()
{
    if (hasError() || m_stopped)
        return false;
    if (!m_done)
        return fail(QStringLiteral("the reply ended before the multistatus element was complete"));
    return true;
}

bool PropfindParser::run()
{
    bool progressed = false;
    while (!m_reader.atEnd()) {
        const QXmlStreamReader::TokenType t = m_reader.readNext();
        switch (t) {
        case QXmlStreamReader::Invalid:
            if (m_reader.error() == QXmlStreamReader::PrematureEndOfDocumentError) {
                if (progressed)
                    m_unconsumed = 0;
                if (m_unconsumed > m_limits.maxPendingBytes)
                    return fail(QStringLiteral("a token is longer than %1 bytes").arg(m_limits.maxPendingBytes));
                return true;
            }
            return fail(QStringLiteral("not well-formed XML at line %1, column %2: %3")
                            .arg(m_reader.lineNumber())
                            .arg(m_reader.columnNumber())
                            .arg(m_reader.errorString()));
        case QXmlStreamReader::DTD:
            return fail(QStringLiteral("a document type declaration is not allowed"));
        case QXmlStreamReader::EntityReference:
            return fail(QStringLiteral("an unknown entity is not allowed"));
        case QXmlStreamReader::StartElement:
            if (!startElement())
                return false;
            break;
        case QXmlStreamReader::EndElement:
            if (!endElement())
                return false;
            break;
        case QXmlStreamReader::Characters:
            if (m_capture) {
                const QStringView text = m_reader.text();
                if (m_text.size() + text.size() > m_limits.maxTextBytes) // UTF-16 units ≤ UTF-8 bytes
                    return fail(QStringLiteral("a text value is longer than %1 bytes").arg(m_limits.maxTextBytes));
                m_text += text.toUtf8();
                if (m_text.size() > m_limits.maxTextBytes)
                    return fail(QStringLiteral("a text value is longer than %1 bytes").arg(m_limits.maxTextBytes));
            }
            break;
        case QXmlStreamReader::EndDocument:
            m_done = true;
            break;
        default: // StartDocument, Comment, ProcessingInstruction, NoToken
            break;
        }
        progressed = true;
        if (m_stopped)
            return false;
    }
    if (!m_done)
        m_unconsumed = 0;
    return true;
}

PropfindParser::Kind PropfindParser::classify(Kind parent) const
{
    if (parent == Kind::Other || m_reader.namespaceUri() != u"DAV:")
        return Kind::Other;
    const QStringView n = m_reader.name();
    switch (parent) {
    case Kind::Root:
        return n == u"multistatus" ? Kind::Multistatus : Kind::Other;
    case Kind::Multistatus:
        return n == u"response" ? Kind::Response : Kind::Other;
    case Kind::Response:
        if (n == u"href")
            return Kind::Href;
        if (n == u"propstat")
            return Kind::Propstat;
        if (n == u"status")
            return Kind::ResponseStatus;
        return Kind::Other;
    case Kind::Propstat:
        if (n == u"prop")
            return Kind::Prop;
        if (n == u"status")
            return Kind::PropstatStatus;
        return Kind::Other;
    case Kind::Prop:
        if (n == u"resourcetype")
            return Kind::ResourceType;
        if (n == u"getcontentlength")
            return Kind::ContentLength;
        if (n == u"getlastmodified")
            return Kind::LastModified;
        if (n == u"getcontenttype")
            return Kind::ContentType;
        if (n == u"getetag")
            return Kind::ETag;
        if (n == u"displayname")
            return Kind::DisplayName;
        if (n == u"quota-available-bytes")
            return Kind::QuotaAvailable;
        if (n == u"quota-used-bytes")
            return Kind::QuotaUsed;
        return Kind::Other;
    case Kind::ResourceType:
        return n == u"collection" ? Kind::Collection : Kind::Other;
    default:
        return Kind::Other;
    }
}

bool PropfindParser::startElement()
{
    if (m_stack.size() > m_limits.maxDepth)
        return fail(QStringLiteral("elements are nested deeper than %1").arg(m_limits.maxDepth));
    const Kind parent = m_stack.constLast();
    const Kind k = classify(parent);
    if (parent == Kind::Root && k != Kind::Multistatus)
        return fail(QStringLiteral("the root element is not DAV:multistatus"));
    m_stack.append(k);
    switch (k) {
    case Kind::Response:
        m_entry.clear();
        m_haveHref = false;
        break;
    case Kind::Propstat:
        m_pending = Pending();
        break;
    case Kind::Href:
    case Kind::ResponseStatus:
    case Kind::PropstatStatus:
    case Kind::ContentLength:
    case Kind::LastModified:
    case Kind::ContentType:
    case Kind::ETag:
    case Kind::DisplayName:
    case Kind::QuotaAvailable:
    case Kind::QuotaUsed:
        m_text.clear();
        m_capture = true;
        break;
    case Kind::ResourceType:
        m_pending.haveResourceType = true;
        break;
    case Kind::Collection:
        m_pending.isCollection = true;
        break;
    default:
        break;
    }
    return true;
}

bool PropfindParser::endElement()
{
    if (m_stack.size() <= 1)
        return fail(QStringLiteral("unbalanced end element"));
    const Kind k = m_stack.takeLast();
    m_capture = false;
    switch (k) {
    case Kind::Href:
        // several hrefs (a status response may list many): the first names the entry
        if (!m_haveHref) {
            m_entry.href = trimmed(m_text);
            m_haveHref = true;
        }
        break;
    case Kind::ResponseStatus:
        m_entry.status = parseStatusLine(m_text);
        break;
    case Kind::PropstatStatus:
        m_pending.status = parseStatusLine(m_text);
        break;
    case Kind::ContentLength:
        if (const auto n = parseLength(m_text))
            m_pending.size = *n;
        break;
    case Kind::LastModified:
        m_pending.mtime = parseHttpDate(m_text);
        break;
    case Kind::ContentType:
        m_pending.contentType = mimeOnly(m_text);
        break;
    case Kind::ETag:
        m_pending.etag = trimmed(m_text);
        break;
    case Kind::DisplayName:
        m_pending.displayName = m_text;
        break;
    case Kind::QuotaAvailable:
        if (const auto n = parseLength(m_text))
            m_pending.quotaAvailable = *n;
        break;
    case Kind::QuotaUsed:
        if (const auto n = parseLength(m_text))
            m_pending.quotaUsed = *n;
        break;
    case Kind::Propstat:
        if (m_pending.status >= 200 && m_pending.status < 300) {
            m_entry.hasProperties = true;
            if (m_pending.haveResourceType)
                m_entry.isCollection = m_pending.isCollection;
            if (m_pending.size >= 0)
                m_entry.size = m_pending.size;
            if (m_pending.mtime)
                m_entry.mtime = m_pending.mtime;
            if (!m_pending.contentType.isEmpty())
                m_entry.contentType = m_pending.contentType;
            if (!m_pending.etag.isEmpty())
                m_entry.etag = m_pending.etag;
            if (!m_pending.displayName.isEmpty())
                m_entry.displayName = m_pending.displayName;
            if (m_pending.quotaAvailable >= 0)
                m_entry.quotaAvailable = m_pending.quotaAvailable;
            if (m_pending.quotaUsed >= 0)
                m_entry.quotaUsed = m_pending.quotaUsed;
        }
        break;
    case Kind::Response:
        return finishResponse();
    default:
        break;
    }
    return true;
}

// Sets e.name (and e.isSelf) from e.path; false if the response is to be skipped.
bool PropfindParser::nameFor(DavEntry &e)
{
    const QByteArray p = stripTrailingSlashes(e.path);
    switch (m_mode) {
    case Mode::All:
        e.name = e.path;
        return true;
    case Mode::Self:
        e.isSelf = true;
        e.name = p.mid(p.lastIndexOf('/') + 1);
        return true;
    case Mode::Children:
        break;
    }
    if (p == m_collection) {
        e.isSelf = true;
        return true;
    }
    const bool under = p.size() > m_collection.size() && p.startsWith(m_collection) && p[m_collection.size()] == '/';
    if (!under && m_firstResponse && e.isCollection) {
        // The server names the collection differently (a proxy that rewrites paths):
        // what it calls the collection is the base of the others.
        m_collection = p;
        e.isSelf = true;
        return true;
    }
    if (under)
        e.name = p.mid(m_collection.size() + 1);
    if (e.name.isEmpty() && !under && !e.displayName.isEmpty())
        e.name = e.displayName;
    if (e.name.isEmpty())
        return false;
    if (!Url::isSafeName(e.name)) {
        if (m_unsafe)
            m_unsafe(e.name);
        return false;
    }
    return true;
}

bool PropfindParser::finishResponse()
{
    const bool first = m_firstResponse;
    if (++m_responses > m_limits.maxEntries)
        return fail(QStringLiteral("more than %1 responses").arg(m_limits.maxEntries));
    DavEntry &e = m_entry;
    if (!m_haveHref) {
        ++m_skipped;
        m_firstResponse = false;
        return true;
    }
    e.path = decodedHrefPath(e.href, m_collection);
    if (e.isCollection)
        e.contentType = QByteArrayLiteral("inode/directory");
    const bool keep = nameFor(e);
    m_firstResponse = false;
    if (!keep) {
        ++m_skipped;
        return true;
    }
    if (m_mode == Mode::Self) {
        if (!first)
            return true; // a Depth 0 reply has one response; ignore any others
        m_self = e;
        m_haveSelf = true;
    } else if (e.isSelf) {
        if (!m_haveSelf) {
            m_self = e;
            m_haveSelf = true;
        }
        return true;
    }
    // A member whose own status is an error (a 404 in a Depth 1 reply) is not a member.
    if (m_mode == Mode::Children && e.status != 0 && (e.status < 200 || e.status >= 300)) {
        ++m_skipped;
        return true;
    }
    ++m_reported;
    if (m_handler && !m_handler(e))
        m_stopped = true;
    return true;
}

} // namespace Qvfs::Http
