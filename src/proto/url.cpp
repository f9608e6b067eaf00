// SPDX-License-Identifier: LGPL-2.1-or-later
#include "url.h"
#include "url_p.h"
#include "urlsyntax_p.h"

#include <QList>

#include <unistd.h>

#include <utility>

namespace Qvfs::Url
{

namespace
{

// Bytes QUrl itself percent-encodes in a path (QUrl::FullyEncoded): controls, space,
// DEL, everything outside ASCII, and "#%<>?\^`{|} plus the double quote. Encoding
// exactly this set makes our URLs compare equal to ones QUrl parses from text.
bool mustEncode(uchar c)
{
    if (c <= 0x20 || c >= 0x7f) {
        return true;
    }
    switch (c) {
    case '"':
    case '#':
    case '%':
    case '<':
    case '>':
    case '?':
    case '\\':
    case '^':
    case '`':
    case '{':
    case '|':
    case '}':
        return true;
    default:
        return false;
    }
}

} // namespace

namespace Detail
{

void appendEncoded(QByteArray &out, QByteArrayView bytes)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const char ch : bytes) {
        const uchar c = uchar(ch);
        if (mustEncode(c)) {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 0xf];
        } else {
            out += ch;
        }
    }
}

// The path as QUrl keeps it internally: pure ASCII, so toLatin1() is exact.
QByteArray encodedPath(const QUrl &url)
{
    return url.path(QUrl::FullyEncoded).toLatin1();
}

// TolerantMode keeps existing %XX escapes as they are (StrictMode would too; DecodedMode
// would turn '%' into "%25" and cannot express non-UTF-8 bytes at all).
void setEncodedPath(QUrl &url, const QByteArray &encoded)
{
    url.setPath(QString::fromLatin1(encoded), QUrl::TolerantMode);
}

QUrl reportedChild(const QUrl &folder, QByteArrayView name)
{
    QUrl u = folder;
    QByteArray path = encodedPath(folder);
    if (!path.endsWith('/'))
        path += '/';
    path += name.toByteArray().toPercentEncoding();
    setEncodedPath(u, path);
    return u;
}

void appendDecoded(QByteArray &out, QByteArrayView encoded)
{
    const qsizetype from = out.size();
    out.resize(from + encoded.size());
    char *o = out.data() + from;
    for (qsizetype i = 0; i < encoded.size(); ++i) {
        const char c = encoded[i];
        const int hi = c == '%' && i + 2 < encoded.size() ? hexDigit(encoded[i + 1]) : -1;
        const int lo = hi >= 0 ? hexDigit(encoded[i + 2]) : -1;
        if (lo >= 0) {
            *o++ = char((hi << 4) | lo);
            i += 2;
        } else {
            *o++ = c;
        }
    }
    out.resize(o - out.constData());
}

QByteArray decoded(QByteArrayView encoded)
{
    return QByteArray::fromPercentEncoding(encoded.toByteArray());
}

QByteArray decodedPath(const QUrl &url)
{
    return decoded(encodedPath(url));
}

QByteArray hostDisplay(const QUrl &url)
{
    QByteArray host = url.host().toUtf8();
    if (host.contains(':'))
        host = '[' + host + ']';
    if (url.port() > 0)
        host += ':' + QByteArray::number(url.port());
    return host;
}

bool isLocalHost(const QUrl &url)
{
    const QString host = url.host(QUrl::FullyEncoded);
    if (host.isEmpty() || host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        return true;
    // "file://HOSTNAME/path" with this machine's own name, as `ls --hyperlink` writes.
    static const QString self = [] {
        char name[256];
        if (::gethostname(name, sizeof name) != 0)
            return QString();
        name[sizeof name - 1] = '\0';
        return QString::fromLatin1(name);
    }();
    return !self.isEmpty() && host.compare(self, Qt::CaseInsensitive) == 0;
}

QList<QByteArrayView> splitSegments(QByteArrayView path)
{
    QList<QByteArrayView> segments;
    qsizetype start = 0;
    while (start < path.size()) {
        qsizetype end = path.indexOf('/', start);
        if (end < 0) {
            end = path.size();
        }
        if (end > start) {
            segments.append(path.sliced(start, end - start));
        }
        start = end + 1;
    }
    return segments;
}

// Lexical cleanup of an absolute path (raw or encoded bytes alike): collapses "//",
// drops ".", resolves ".." (not above the root), drops the trailing slash.
QByteArray cleanAbsolutePath(QByteArrayView path)
{
    QList<QByteArrayView> kept;
    const QList<QByteArrayView> segments = splitSegments(path);
    for (const QByteArrayView segment : segments) {
        if (segment == QByteArrayView(".")) {
            continue;
        }
        if (segment == QByteArrayView("..")) {
            if (!kept.isEmpty()) {
                kept.removeLast();
            }
            continue;
        }
        kept.append(segment);
    }
    if (kept.isEmpty()) {
        return QByteArrayLiteral("/");
    }
    QByteArray out;
    out.reserve(path.size());
    for (const QByteArrayView segment : std::as_const(kept)) {
        out += '/';
        out += segment;
    }
    return out;
}

} // namespace Detail

namespace
{

using namespace Detail;

bool looksLikeUrl(QByteArrayView arg)
{
    return qvfs_looks_like_url(arg.data(), size_t(arg.size())) != 0;
}

} // namespace

namespace Detail
{

QList<QByteArray> decodedSegments(const QUrl &url)
{
    QList<QByteArray> out;
    const QByteArray path = encodedPath(url);
    if (isLocalFile(url)) {
        // In a file URL an encoded '/' is a separator like any other.
        const QByteArray raw = decoded(path);
        const QList<QByteArrayView> segments = splitSegments(raw);
        for (const QByteArrayView segment : segments) {
            out.append(segment.toByteArray());
        }
    } else {
        const QList<QByteArrayView> segments = splitSegments(path);
        for (const QByteArrayView segment : segments) {
            out.append(decoded(segment));
        }
    }
    return out;
}

// ---- URL identity, given what the protocol declares (urlidentity.cpp looks it up) ----

QUrl normalizedFor(const QUrl &url, const QString &canonicalScheme, int defaultPort)
{
    if (!url.isValid()) {
        return url;
    }
    QUrl result = url;
    const bool file = isLocalFile(url);

    const QString scheme = canonicalScheme.isEmpty() ? url.scheme().toLower() : canonicalScheme;
    if (scheme != url.scheme()) {
        result.setScheme(scheme);
    }

    const QString host = result.host(QUrl::FullyEncoded);
    const QString lowerHost = host.toLower();
    if (file && lowerHost == QLatin1String("localhost")) {
        result.setHost(QString());
    } else if (lowerHost != host) {
        result.setHost(lowerHost, QUrl::TolerantMode);
    }

    if (defaultPort > 0 && result.port() == defaultPort) {
        result.setPort(-1);
    }

    const QByteArray path = encodedPath(result);
    if (file) {
        if (path.isEmpty() || path.startsWith('/')) {
            // Work on the raw bytes so that the encoding comes out canonical too.
            const QByteArray clean = cleanAbsolutePath(decoded(path));
            QByteArray encoded;
            encoded.reserve(clean.size() + 16);
            appendEncoded(encoded, clean);
            setEncodedPath(result, encoded);
        }
    } else if (path.startsWith('/') || (path.isEmpty() && !result.authority().isEmpty())) {
        // Encoded segments, never decoded: an escaped '/' inside a segment stays one.
        setEncodedPath(result, cleanAbsolutePath(path));
    }
    return result;
}

QString keyOfNormalized(const QUrl &url)
{
    if (!url.isValid()) {
        return QString();
    }
    if (isLocalFile(url)) {
        return QStringLiteral("file:");
    }
    return url.adjusted(QUrl::RemovePassword | QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment)
        .toString(QUrl::FullyEncoded);
}

bool isAncestorOrSameNormalized(const QUrl &a, const QUrl &u)
{
    if (!a.isValid() || !u.isValid()) {
        return false;
    }
    if (keyOfNormalized(a) != keyOfNormalized(u)) {
        return false;
    }
    const QList<QByteArray> as = decodedSegments(a);
    const QList<QByteArray> us = decodedSegments(u);
    if (as.size() > us.size()) {
        return false;
    }
    for (qsizetype i = 0; i < as.size(); ++i) {
        if (as.at(i) != us.at(i)) {
            return false;
        }
    }
    return true;
}

} // namespace Detail

using namespace Detail;

QUrl fromLocalPath(QByteArrayView path)
{
    if (path.isEmpty() || path.front() != '/' || path.contains('\0')) {
        return QUrl();
    }
    QByteArray encoded;
    encoded.reserve(path.size() + 16);
    bool afterSlash = false;
    for (const char ch : path) {
        if (ch == '/') {
            if (!afterSlash) {
                encoded += '/';
            }
            afterSlash = true;
        } else {
            appendEncoded(encoded, QByteArrayView(&ch, 1));
            afterSlash = false;
        }
    }
    QUrl url;
    url.setScheme(QStringLiteral("file"));
    setEncodedPath(url, encoded);
    return url;
}

QByteArray localPath(const QUrl &url)
{
    if (!url.isValid() || !isLocalFile(url) || !isLocalHost(url)) {
        return QByteArray();
    }
    QByteArray path = decodedPath(url);
    if (path.contains('\0')) {
        return QByteArray();
    }
    return path;
}

QUrl fromUserInput(QByteArrayView arg, QByteArrayView cwd)
{
    if (arg.isEmpty() || arg.contains('\0')) {
        return QUrl();
    }
    if (looksLikeUrl(arg)) {
        // QUrl::fromEncoded() would replace invalid UTF-8 with U+FFFD: escape it first.
        QByteArray encoded;
        encoded.reserve(arg.size() + 16);
        static const char hex[] = "0123456789ABCDEF";
        for (const char ch : arg) {
            const uchar c = uchar(ch);
            if (c <= 0x20 || c >= 0x7f) {
                encoded += '%';
                encoded += hex[c >> 4];
                encoded += hex[c & 0xf];
            } else {
                encoded += ch;
            }
        }
        const QUrl url = QUrl::fromEncoded(encoded, QUrl::TolerantMode);
        if (!url.isValid() || url.scheme().isEmpty()) {
            return QUrl();
        }
        if (isLocalFile(url) && (!url.path().startsWith(QLatin1Char('/')) || !isLocalHost(url))) {
            return QUrl();
        }
        if (isLocalFile(url) && !url.host().isEmpty()) {
            QUrl local = url;
            local.setHost(QString()); // one form for this machine's files
            return local;
        }
        return url;
    }
    QByteArray full;
    if (arg.front() == '/') {
        full = arg.toByteArray();
    } else {
        if (cwd.isEmpty() || cwd.front() != '/' || cwd.contains('\0')) {
            return QUrl();
        }
        full.reserve(cwd.size() + 1 + arg.size());
        full += cwd;
        full += '/';
        full += arg;
    }
    return fromLocalPath(cleanAbsolutePath(full));
}

QUrl child(const QUrl &parent, QByteArrayView name)
{
    if (!parent.isValid()) {
        return QUrl();
    }
    const QList<QByteArrayView> segments = splitSegments(name);
    if (segments.isEmpty()) {
        return QUrl();
    }
    QByteArray path = encodedPath(parent);
    path.reserve(path.size() + 1 + name.size() + 16);
    for (const QByteArrayView segment : segments) {
        if (segment == QByteArrayView(".") || segment == QByteArrayView("..") || segment.contains('\0')) {
            return QUrl();
        }
        if (!path.endsWith('/')) {
            path += '/';
        }
        appendEncoded(path, segment);
    }
    QUrl url = parent.adjusted(QUrl::RemoveQuery | QUrl::RemoveFragment);
    setEncodedPath(url, path);
    return url;
}

QByteArray fileName(const QUrl &url)
{
    QByteArray path = encodedPath(url);
    while (path.endsWith('/')) {
        path.chop(1);
    }
    return decoded(QByteArrayView(path).sliced(path.lastIndexOf('/') + 1));
}

QUrl parent(const QUrl &url)
{
    if (!url.isValid()) {
        return QUrl();
    }
    QByteArray path = encodedPath(url);
    const bool rooted = path.startsWith('/') || !url.authority().isEmpty() || isLocalFile(url);
    while (path.endsWith('/')) {
        path.chop(1);
    }
    const qsizetype slash = path.lastIndexOf('/');
    path.truncate(slash < 0 ? 0 : slash);
    while (path.endsWith('/')) {
        path.chop(1);
    }
    if (path.isEmpty() && rooted) {
        path = QByteArrayLiteral("/");
    }
    QUrl result = url.adjusted(QUrl::RemoveQuery | QUrl::RemoveFragment);
    setEncodedPath(result, path);
    return result;
}

QString displayString(const QUrl &url)
{
    if (url.isValid() && isLocalFile(url) && isLocalHost(url)) {
        return QString::fromUtf8(decodedPath(url));
    }
    return url.toDisplayString(QUrl::RemovePassword);
}

bool isLocalFile(const QUrl &url)
{
    return url.scheme().compare(QLatin1String("file"), Qt::CaseInsensitive) == 0;
}

bool isSafeName(QByteArrayView name)
{
    return !name.isEmpty() && name != QByteArrayView(".") && name != QByteArrayView("..") && !name.contains('/')
        && !name.contains('\0');
}

} // namespace Qvfs::Url
