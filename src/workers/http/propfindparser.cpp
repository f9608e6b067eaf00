// SPDX-License-Identifier: LGPL-2.1-or-later
#include "httpdate_p.h"
#include "propfindparser_p.h"
#include "url.h"
#include "url_p.h"

#include <cstring>

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

// Empties \a b, keeping its buffer when no one else holds it: the entry's fields are
// reused from one response to the next without allocating.
void reuse(QByteArray &b)
{
    if (b.isDetached())
        b.resize(0);
    else
        b.clear();
}

void assign(QByteArray &to, QByteArrayView from)
{
    reuse(to);
    to.append(from.data(), from.size());
}

QByteArrayView withoutTrailingSlashes(QByteArrayView p)
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

// The MIME type without parameters, in lower case.
void assignMimeOnly(QByteArray &to, QByteArrayView v)
{
    const qsizetype semi = v.indexOf(';');
    if (semi >= 0)
        v = v.first(semi);
    assign(to, v.trimmed());
    for (char &c : to) {
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    }
}

bool isSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

bool allSpace(QByteArrayView t)
{
    for (char c : t) {
        if (!isSpace(c))
            return false;
    }
    return true;
}

// Characters that end a name in a tag (or may not be in one).
bool endsName(char c)
{
    return isSpace(c) || c == '/' || c == '>' || c == '=' || c == '<' || c == '"' || c == '\'' || c == '&';
}

bool validName(QByteArrayView n)
{
    if (n.isEmpty())
        return false;
    const char c = n.front();
    return !(c >= '0' && c <= '9') && c != '-' && c != '.' && c != ':' && !n.endsWith(':');
}

// Appends \a cp as UTF-8; false for a code point XML does not allow.
bool appendCodePoint(QByteArray *out, quint32 cp)
{
    if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF || cp == 0xFFFE || cp == 0xFFFF
        || (cp < 0x20 && cp != 0x9 && cp != 0xA && cp != 0xD))
        return false;
    if (!out)
        return true;
    if (cp < 0x80) {
        out->append(char(cp));
    } else if (cp < 0x800) {
        out->append(char(0xC0 | (cp >> 6)));
        out->append(char(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out->append(char(0xE0 | (cp >> 12)));
        out->append(char(0x80 | ((cp >> 6) & 0x3F)));
        out->append(char(0x80 | (cp & 0x3F)));
    } else {
        out->append(char(0xF0 | (cp >> 18)));
        out->append(char(0x80 | ((cp >> 12) & 0x3F)));
        out->append(char(0x80 | ((cp >> 6) & 0x3F)));
        out->append(char(0x80 | (cp & 0x3F)));
    }
    return true;
}

} // namespace

void PropfindParser::Pending::reset()
{
    props.clear();
    isCollection = false;
    haveResourceType = false;
    status = 200;
}

void DavEntry::clear()
{
    reuse(name);
    reuse(href);
    reuse(path);
    isSelf = false;
    isCollection = false;
    hasProperties = false;
    status = 0;
    size = -1;
    mtime.reset();
    reuse(contentType);
    reuse(etag);
    reuse(displayName);
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
    QByteArray path;
    decodeHrefPath(href, base, &path);
    return path;
}

void decodeHrefPath(QByteArrayView href, QByteArrayView base, QByteArray *out)
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
    for (qsizetype i = 0; i < h.size(); ++i) {
        if (h[i] == '?' || h[i] == '#') {
            h = h.first(i);
            break;
        }
    }
    reuse(*out);
    if (!h.startsWith('/')) {
        out->append(base.data(), base.size());
        out->append('/');
    }
    Url::Detail::appendDecoded(*out, h);
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
    m_collection = withoutTrailingSlashes(decodedHrefPath(requestPath, "")).toByteArray();
    m_stack.reserve(16);
    m_stack.append(Kind::Root);
    m_nameStarts.reserve(16);
    m_bindings.reserve(8);
}

PropfindParser::~PropfindParser() = default;

bool PropfindParser::fail(const QString &why)
{
    if (m_error.isEmpty())
        m_error = why;
    return false;
}

bool PropfindParser::notWellFormed(const char *why)
{
    return fail(QStringLiteral("not well-formed XML at byte %1: %2").arg(m_offset).arg(QLatin1String(why)));
}

bool PropfindParser::addData(QByteArrayView chunk)
{
    if (hasError() || m_stopped)
        return false;
    qsizetype pos = 0;
    const qsizetype size = chunk.size();
    // A UTF-8 byte order mark may come first (.NET's XmlWriter writes one by default).
    static constexpr char bom[] = "\xEF\xBB\xBF";
    while (!m_started && pos < size) {
        if (chunk[pos] != bom[m_bomBytes]) {
            if (m_bomBytes > 0)
                return notWellFormed("a broken byte order mark");
            m_started = true;
            break;
        }
        ++pos;
        ++m_offset;
        m_started = ++m_bomBytes == 3;
    }
    if (!m_partial.isEmpty()) {
        // The token the last chunk ended in: only its own bytes are copied, up to its end.
        while (m_token == Token::Unknown && pos < size) {
            m_partial.append(chunk[pos++]);
            classifyToken(m_partial);
        }
        if (m_token == Token::Unknown)
            return true;
        qsizetype end = scanToken(m_partial.constData() + m_scanFrom, m_partial.size() - m_scanFrom);
        if (end < 0) {
            end = scanToken(chunk.data() + pos, size - pos);
            const qsizetype take = end < 0 ? size - pos : end;
            m_partial.append(chunk.data() + pos, take);
            m_scanFrom = m_partial.size(); // looked at up to here
            pos += take;
            if (m_partial.size() > m_limits.maxPendingBytes)
                return fail(QStringLiteral("a token is longer than %1 bytes").arg(m_limits.maxPendingBytes));
            if (end < 0)
                return true;
        }
        const Token kind = m_token;
        m_token = Token::Unknown;
        if (!token(kind, m_partial))
            return false;
        m_offset += m_partial.size();
        m_partial.resize(0);
    }
    while (pos < size) {
        const QByteArrayView rest = chunk.sliced(pos);
        if (m_token == Token::Unknown && !classifyToken(rest)) {
            m_partial.append(rest.data(), rest.size());
            return true;
        }
        qsizetype end = scanToken(rest.data() + m_scanFrom, rest.size() - m_scanFrom);
        if (end < 0) {
            if (rest.size() > m_limits.maxPendingBytes)
                return fail(QStringLiteral("a token is longer than %1 bytes").arg(m_limits.maxPendingBytes));
            m_scanFrom = rest.size();
            m_partial.append(rest.data(), rest.size());
            return true;
        }
        end += m_scanFrom;
        const Token kind = m_token;
        m_token = Token::Unknown;
        if (!token(kind, rest.first(end)))
            return false;
        m_offset += end;
        pos += end;
    }
    return true;
}

bool PropfindParser::finish()
{
    if (hasError() || m_stopped)
        return false;
    if (!m_done)
        return fail(QStringLiteral("the reply ended before the multistatus element was complete"));
    if (!m_partial.isEmpty() && !(m_token == Token::Text && allSpace(m_partial)))
        return notWellFormed("the reply ends inside a token");
    return true;
}

// What the token starting \a t is, once its first bytes tell (at most 9); false until then.
bool PropfindParser::classifyToken(QByteArrayView t)
{
    m_quote = 0;
    m_run = 0;
    if (t.front() != '<') {
        m_token = Token::Text;
        m_scanFrom = 0;
        return true;
    }
    if (t.size() < 2)
        return false;
    if (t[1] == '?') {
        m_token = Token::Instruction;
        m_scanFrom = 2;
        return true;
    }
    if (t[1] != '!') {
        m_token = Token::Tag;
        m_scanFrom = 1;
        return true;
    }
    // 1: t starts with \a marker, 0: it may, once longer, -1: it does not
    const auto starts = [t](QByteArrayView marker) {
        const qsizetype n = qMin(t.size(), marker.size());
        if (t.first(n) != marker.first(n))
            return -1;
        return n == marker.size() ? 1 : 0;
    };
    const int comment = starts("<!--");
    const int cdata = starts("<![CDATA[");
    if (comment == 1) {
        m_token = Token::Comment;
        m_scanFrom = 4;
    } else if (cdata == 1) {
        m_token = Token::CData;
        m_scanFrom = 9;
    } else if (comment == 0 || cdata == 0) {
        return false;
    } else {
        m_token = Token::Declaration;
        m_scanFrom = 2;
    }
    return true;
}

// Looks for the end of the current token in the \a n bytes at \a p, which follow the
// bytes looked at before: its size from \a p, or -1 if it goes on.
qsizetype PropfindParser::scanToken(const char *p, qsizetype n)
{
    switch (m_token) {
    case Token::Text: {
        const void *lt = n > 0 ? std::memchr(p, '<', size_t(n)) : nullptr;
        return lt ? static_cast<const char *>(lt) - p : -1;
    }
    case Token::Tag:
    case Token::Declaration:
        for (qsizetype i = 0; i < n; ++i) {
            const char c = p[i];
            if (m_quote) {
                if (c == m_quote)
                    m_quote = 0;
            } else if (c == '"' || c == '\'') {
                m_quote = c;
            } else if (c == '>') {
                return i + 1;
            }
        }
        return -1;
    case Token::Comment:
    case Token::CData: {
        const char twice = m_token == Token::Comment ? '-' : ']';
        for (qsizetype i = 0; i < n; ++i) {
            const char c = p[i];
            if (c == twice) {
                m_run = quint8(qMin(m_run + 1, 2));
            } else {
                if (c == '>' && m_run == 2)
                    return i + 1;
                m_run = 0;
            }
        }
        return -1;
    }
    case Token::Instruction:
        for (qsizetype i = 0; i < n; ++i) {
            const char c = p[i];
            if (c == '>' && m_run)
                return i + 1;
            m_run = c == '?';
        }
        return -1;
    case Token::Unknown:
        break;
    }
    return -1;
}

bool PropfindParser::token(Token kind, QByteArrayView t)
{
    if (!t.isValidUtf8())
        return notWellFormed("not UTF-8");
    switch (kind) {
    case Token::Text:
        return text(t);
    case Token::Tag:
        if (!tag(t))
            return false;
        return !m_stopped;
    case Token::Declaration:
        if (t.startsWith("<!DOCTYPE"))
            return fail(QStringLiteral("a document type declaration is not allowed"));
        return notWellFormed("a declaration other than a comment or CDATA");
    case Token::Comment:
        return true;
    case Token::CData:
        if (m_stack.size() <= 1)
            return notWellFormed("CDATA outside the root element");
        if (m_capture) {
            const QByteArrayView content = t.sliced(9, t.size() - 12);
            if (m_text.size() + content.size() > m_limits.maxTextBytes)
                return fail(QStringLiteral("a text value is longer than %1 bytes").arg(m_limits.maxTextBytes));
            m_text.append(content.data(), content.size());
        }
        return true;
    case Token::Instruction: {
        // the XML declaration only at the very start; other instructions are skipped
        const QByteArrayView target = t.sliced(2);
        if (target.startsWith("xml") && target.size() > 3 && (isSpace(target[3]) || target[3] == '?')
            && m_offset != m_bomBytes)
            return notWellFormed("an XML declaration after the start");
        return true;
    }
    case Token::Unknown:
        break;
    }
    return true;
}
bool PropfindParser::decodeText(QByteArrayView raw, QByteArray *out, qsizetype limit)
{
    qsizetype pos = 0;
    while (pos < raw.size()) {
        const qsizetype amp = raw.indexOf('&', pos);
        const QByteArrayView run = raw.sliced(pos, (amp < 0 ? raw.size() : amp) - pos);
        if (run.contains('<'))
            return notWellFormed("'<' in text or an attribute value");
        if (out) {
            if (out->size() + run.size() > limit)
                return fail(QStringLiteral("a text value is longer than %1 bytes").arg(limit));
            out->append(run.data(), run.size());
        }
        if (amp < 0)
            break;
        const qsizetype semi = raw.indexOf(';', amp);
        if (semi < 0 || semi - amp > 12)
            return notWellFormed("'&' without a reference");
        const QByteArrayView ref = raw.sliced(amp + 1, semi - amp - 1);
        char named = 0;
        if (ref == "lt")
            named = '<';
        else if (ref == "gt")
            named = '>';
        else if (ref == "amp")
            named = '&';
        else if (ref == "quot")
            named = '"';
        else if (ref == "apos")
            named = '\'';
        if (named) {
            if (out)
                out->append(named);
        } else if (ref.startsWith('#')) {
            const bool hex = ref.startsWith("#x");
            const QByteArrayView digits = ref.sliced(hex ? 2 : 1);
            quint32 cp = 0;
            for (char c : digits) {
                const int v = hex ? Url::Detail::hexDigit(c) : (c >= '0' && c <= '9' ? c - '0' : -1);
                if (v < 0 || cp > 0x10FFFF)
                    return notWellFormed("a bad character reference");
                cp = cp * (hex ? 16 : 10) + quint32(v);
            }
            if (digits.isEmpty() || !appendCodePoint(out, cp))
                return notWellFormed("a bad character reference");
        } else {
            return fail(QStringLiteral("an unknown entity is not allowed"));
        }
        if (out && out->size() > limit)
            return fail(QStringLiteral("a text value is longer than %1 bytes").arg(limit));
        pos = semi + 1;
    }
    return true;
}

bool PropfindParser::text(QByteArrayView t)
{
    if (m_stack.size() <= 1) {
        if (!allSpace(t))
            return notWellFormed("text outside the root element");
        return true;
    }
    // Text nobody keeps is only checked (its references).
    return decodeText(t, m_capture ? &m_text : nullptr, m_limits.maxTextBytes);
}

bool PropfindParser::tag(QByteArrayView t)
{
    QByteArrayView body = t.sliced(1, t.size() - 2); // without '<' and '>'
    if (body.startsWith('/')) {
        const QByteArrayView name = body.sliced(1).trimmed();
        if (m_stack.size() <= 1)
            return notWellFormed("an end tag without a start tag");
        const qsizetype start = m_nameStarts.constLast();
        if (QByteArrayView(m_names).sliced(start) != name)
            return notWellFormed("an end tag that does not match its start tag");
        m_names.resize(start);
        m_nameStarts.removeLast();
        return endElement();
    }
    const bool empty = body.endsWith('/');
    if (empty)
        body.chop(1);
    qsizetype i = 0;
    while (i < body.size() && !endsName(body[i]))
        ++i;
    const QByteArrayView name = body.first(i);
    if (!validName(name))
        return notWellFormed("a tag without a valid name");
    if (m_done)
        return notWellFormed("an element after the root element");
    const int depth = int(m_stack.size());
    // the attributes: only namespace declarations matter
    while (i < body.size()) {
        const qsizetype before = i;
        while (i < body.size() && isSpace(body[i]))
            ++i;
        if (i == body.size())
            break;
        if (i == before)
            return notWellFormed("attributes not separated by white space");
        const qsizetype nameStart = i;
        while (i < body.size() && !endsName(body[i]))
            ++i;
        const QByteArrayView attribute = body.sliced(nameStart, i - nameStart);
        while (i < body.size() && isSpace(body[i]))
            ++i;
        if (!validName(attribute) || i == body.size() || body[i] != '=')
            return notWellFormed("a malformed attribute");
        ++i;
        while (i < body.size() && isSpace(body[i]))
            ++i;
        if (i == body.size() || (body[i] != '"' && body[i] != '\''))
            return notWellFormed("an attribute value without quotes");
        const qsizetype close = body.indexOf(body[i], i + 1);
        if (close < 0)
            return notWellFormed("an attribute value without its closing quote");
        const QByteArrayView value = body.sliced(i + 1, close - i - 1);
        i = close + 1;
        const bool isDefault = attribute == "xmlns";
        if (!isDefault && !attribute.startsWith("xmlns:")) {
            if (!decodeText(value, nullptr, 0))
                return false;
            continue;
        }
        // Each element's name is looked up through every declaration in scope: bounded,
        // or a reply declaring thousands would cost quadratic time.
        if (m_bindings.size() >= m_limits.maxNamespaces)
            return fail(QStringLiteral("more than %1 namespace declarations are in scope").arg(m_limits.maxNamespaces));
        reuse(m_scratch);
        if (!decodeText(value, &m_scratch, m_limits.maxTextBytes))
            return false;
        Binding b;
        b.prefixStart = m_prefixes.size();
        b.depth = depth;
        b.dav = m_scratch == "DAV:";
        m_prefixes.append(isDefault ? QByteArrayView() : attribute.sliced(6));
        m_bindings.append(b);
    }
    // the element's namespace: the innermost declaration of its prefix
    const qsizetype colon = name.indexOf(':');
    const QByteArrayView prefix = colon < 0 ? QByteArrayView() : name.first(colon);
    const QByteArrayView local = colon < 0 ? name : name.sliced(colon + 1);
    bool dav = false;
    bool declared = prefix.isEmpty(); // no default namespace: none
    for (qsizetype b = m_bindings.size() - 1; b >= 0; --b) {
        const Binding &binding = m_bindings.at(b);
        const qsizetype end = b + 1 < m_bindings.size() ? m_bindings.at(b + 1).prefixStart : m_prefixes.size();
        if (QByteArrayView(m_prefixes).sliced(binding.prefixStart, end - binding.prefixStart) == prefix) {
            dav = binding.dav;
            declared = true;
            break;
        }
    }
    if (!declared && prefix != "xml")
        return notWellFormed("an undeclared namespace prefix");
    if (m_stack.size() > m_limits.maxDepth)
        return fail(QStringLiteral("elements are nested deeper than %1").arg(m_limits.maxDepth));
    const Kind parent = m_stack.constLast();
    const Kind k = classify(parent, dav, local);
    if (parent == Kind::Root && k != Kind::Multistatus)
        return fail(QStringLiteral("the root element is not DAV:multistatus"));
    m_rootSeen = true;
    if (!startElement(k))
        return false;
    if (empty)
        return endElement();
    m_nameStarts.append(m_names.size());
    m_names.append(name.data(), name.size());
    return true;
}

PropfindParser::Kind PropfindParser::classify(Kind parent, bool dav, QByteArrayView n) const
{
    if (parent == Kind::Other || !dav)
        return Kind::Other;
    switch (parent) {
    case Kind::Root:
        return n == "multistatus" ? Kind::Multistatus : Kind::Other;
    case Kind::Multistatus:
        return n == "response" ? Kind::Response : Kind::Other;
    case Kind::Response:
        if (n == "href")
            return Kind::Href;
        if (n == "propstat")
            return Kind::Propstat;
        if (n == "status")
            return Kind::ResponseStatus;
        return Kind::Other;
    case Kind::Propstat:
        if (n == "prop")
            return Kind::Prop;
        if (n == "status")
            return Kind::PropstatStatus;
        return Kind::Other;
    case Kind::Prop:
        if (n == "resourcetype")
            return Kind::ResourceType;
        if (n == "getcontentlength")
            return Kind::ContentLength;
        if (n == "getlastmodified")
            return Kind::LastModified;
        if (n == "getcontenttype")
            return Kind::ContentType;
        if (n == "getetag")
            return Kind::ETag;
        if (n == "displayname")
            return Kind::DisplayName;
        if (n == "quota-available-bytes")
            return Kind::QuotaAvailable;
        if (n == "quota-used-bytes")
            return Kind::QuotaUsed;
        return Kind::Other;
    case Kind::ResourceType:
        return n == "collection" ? Kind::Collection : Kind::Other;
    default:
        return Kind::Other;
    }
}

bool PropfindParser::startElement(Kind k)
{
    m_stack.append(k);
    switch (k) {
    case Kind::Response:
        m_entry.clear();
        m_haveHref = false;
        break;
    case Kind::Propstat:
        m_pending.reset();
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
        m_text.resize(0);
        m_capture = true;
        m_captureDepth = m_stack.size();
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
    // the namespace declarations of the element end with it
    const int depth = int(m_stack.size());
    while (!m_bindings.isEmpty() && m_bindings.constLast().depth == depth) {
        m_prefixes.resize(m_bindings.constLast().prefixStart);
        m_bindings.removeLast();
    }
    // a property's text is all the text inside it, an element nested in it included
    // (text after such an element used to be dropped)
    if (m_stack.size() < m_captureDepth)
        m_capture = false;
    if (m_stack.size() == 1)
        m_done = true;
    switch (k) {
    case Kind::Href:
        // several hrefs (a status response may list many): the first names the entry
        if (!m_haveHref) {
            assign(m_entry.href, QByteArrayView(m_text).trimmed());
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
            m_pending.props.size = *n;
        break;
    case Kind::LastModified:
        m_pending.props.mtime = parseHttpDate(m_text);
        break;
    case Kind::ContentType:
        assignMimeOnly(m_pending.props.contentType, m_text);
        break;
    case Kind::ETag:
        assign(m_pending.props.etag, QByteArrayView(m_text).trimmed());
        break;
    case Kind::DisplayName:
        assign(m_pending.props.displayName, m_text);
        break;
    case Kind::QuotaAvailable:
        if (const auto n = parseLength(m_text))
            m_pending.props.quotaAvailable = *n;
        break;
    case Kind::QuotaUsed:
        if (const auto n = parseLength(m_text))
            m_pending.props.quotaUsed = *n;
        break;
    case Kind::Propstat:
        if (m_pending.status >= 200 && m_pending.status < 300) {
            m_entry.hasProperties = true;
            if (m_pending.haveResourceType)
                m_entry.isCollection = m_pending.isCollection;
            if (m_pending.props.size >= 0)
                m_entry.size = m_pending.props.size;
            if (m_pending.props.mtime)
                m_entry.mtime = m_pending.props.mtime;
            if (!m_pending.props.contentType.isEmpty())
                assign(m_entry.contentType, m_pending.props.contentType);
            if (!m_pending.props.etag.isEmpty())
                assign(m_entry.etag, m_pending.props.etag);
            if (!m_pending.props.displayName.isEmpty())
                assign(m_entry.displayName, m_pending.props.displayName);
            if (m_pending.props.quotaAvailable >= 0)
                m_entry.quotaAvailable = m_pending.props.quotaAvailable;
            if (m_pending.props.quotaUsed >= 0)
                m_entry.quotaUsed = m_pending.props.quotaUsed;
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
    const QByteArrayView p = withoutTrailingSlashes(e.path);
    switch (m_mode) {
    case Mode::All:
        assign(e.name, e.path);
        return true;
    case Mode::Self:
        e.isSelf = true;
        assign(e.name, p.sliced(p.lastIndexOf('/') + 1));
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
        m_collection = p.toByteArray();
        e.isSelf = true;
        return true;
    }
    if (!under) {
        // Not in the collection asked for: its properties are another resource's, whatever
        // it calls itself (a displayname would list them under a name that is not theirs,
        // and the name would lead elsewhere). Left out, counted as skipped; not reported as
        // a loss, since a collection that a server also names otherwise after its first
        // response lands here too.
        return false;
    }
    assign(e.name, p.sliced(m_collection.size() + 1));
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
    decodeHrefPath(e.href, m_collection, &e.path);
    if (e.isCollection)
        assign(e.contentType, "inode/directory");
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
