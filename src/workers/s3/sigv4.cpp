// SPDX-License-Identifier: LGPL-2.1-or-later
#include "sigv4_p.h"

#include <QCryptographicHash>
#include <QMessageAuthenticationCode>

#include <algorithm>

#ifdef QVFS_S3_OPENSSL
#include <openssl/evp.h>
#endif

namespace Qvfs::S3
{

namespace
{

QByteArray hmac(const QByteArray &key, QByteArrayView message)
{
    QMessageAuthenticationCode mac(QCryptographicHash::Sha256, key);
    mac.addData(message.data(), message.size());
    return mac.result();
}

bool unreserved(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
        || c == '_' || c == '~';
}

// A header value as signed: trimmed, runs of blanks inside folded into one space.
QByteArray foldValue(const QByteArray &value)
{
    return value.simplified();
}

} // namespace

SigV4::SigV4(
    const QByteArray &accessKey, const QByteArray &secretKey, const QByteArray &region, const QByteArray &service)
    : m_accessKey(accessKey)
    , m_secretKey(secretKey)
    , m_region(region)
    , m_service(service)
{ }

QByteArray SigV4::emptyPayloadHash()
{
    return QByteArrayLiteral("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

namespace
{

QByteArray digestHex(QByteArrayView data, QCryptographicHash::Algorithm algorithm)
{
#ifdef QVFS_S3_OPENSSL
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    const EVP_MD *md = algorithm == QCryptographicHash::Sha256 ? EVP_sha256() : EVP_md5();
    if (EVP_Digest(data.data(), size_t(data.size()), out, &length, md, nullptr) == 1)
        return QByteArray(reinterpret_cast<const char *>(out), qsizetype(length)).toHex();
#endif
    return QCryptographicHash::hash(data, algorithm).toHex();
}

} // namespace

QByteArray SigV4::payloadHash(QByteArrayView data)
{
    return digestHex(data, QCryptographicHash::Sha256);
}

QByteArray SigV4::md5Hex(QByteArrayView data)
{
    return digestHex(data, QCryptographicHash::Md5);
}

QByteArray SigV4::uriEncode(QByteArrayView bytes, bool keepSlash)
{
    static const char hex[] = "0123456789ABCDEF";
    QByteArray out;
    out.reserve(bytes.size() * 3);
    for (const char c : bytes) {
        if (unreserved(c) || (keepSlash && c == '/')) {
            out.append(c);
        } else {
            const auto b = uchar(c);
            out.append('%');
            out.append(hex[b >> 4]);
            out.append(hex[b & 0xf]);
        }
    }
    return out;
}

QByteArray SigV4::canonicalQuery(const Pairs &query)
{
    Pairs encoded;
    encoded.reserve(query.size());
    for (const auto &p : query)
        encoded.append({ uriEncode(p.first, false), uriEncode(p.second, false) });
    std::sort(encoded.begin(), encoded.end());
    QByteArray out;
    for (const auto &p : std::as_const(encoded)) {
        if (!out.isEmpty())
            out.append('&');
        out.append(p.first);
        out.append('=');
        out.append(p.second);
    }
    return out;
}

QByteArray SigV4::amzDate(const QDateTime &when)
{
    return when.toUTC().toString(QStringLiteral("yyyyMMdd'T'HHmmss'Z'")).toLatin1();
}

QByteArray SigV4::scope(const QDateTime &when) const
{
    return amzDate(when).left(8) + '/' + m_region + '/' + m_service + "/aws4_request";
}

SigV4::Pairs SigV4::canonicalHeaders(const Request &request, const QByteArray &host, const QDateTime &when) const
{
    Pairs headers;
    headers.reserve(request.headers.size() + 2);
    headers.append({ QByteArrayLiteral("host"), host });
    headers.append({ QByteArrayLiteral("x-amz-date"), amzDate(when) });
    for (const auto &h : request.headers) {
        const QByteArray name = h.first.toLower();
        if (name == "host" || name == "x-amz-date")
            continue;
        headers.append({ name, foldValue(h.second) });
    }
    // One line per name; repeated names join their values with commas in the order given.
    std::stable_sort(headers.begin(), headers.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    Pairs merged;
    for (const auto &h : std::as_const(headers)) {
        if (!merged.isEmpty() && merged.constLast().first == h.first)
            merged.last().second += ',' + h.second;
        else
            merged.append(h);
    }
    return merged;
}

QByteArray SigV4::canonicalRequest(const Request &request, const QByteArray &host, const QDateTime &when) const
{
    const Pairs headers = canonicalHeaders(request, host, when);
    QByteArray out = request.method;
    out += '\n';
    out += request.path.isEmpty() ? QByteArrayLiteral("/") : uriEncode(request.path, true);
    out += '\n';
    out += canonicalQuery(request.query);
    out += '\n';
    QByteArray signedNames;
    for (const auto &h : headers) {
        out += h.first + ':' + h.second + '\n';
        if (!signedNames.isEmpty())
            signedNames += ';';
        signedNames += h.first;
    }
    out += '\n';
    out += signedNames;
    out += '\n';
    out += request.payloadHash;
    return out;
}

QByteArray SigV4::stringToSign(const QByteArray &canonicalRequest, const QDateTime &when) const
{
    return "AWS4-HMAC-SHA256\n" + amzDate(when) + '\n' + scope(when) + '\n'
        + QCryptographicHash::hash(canonicalRequest, QCryptographicHash::Sha256).toHex();
}

QByteArray SigV4::signature(const QByteArray &stringToSign, const QDateTime &when) const
{
    const QByteArray day = amzDate(when).left(8);
    if (day != m_keyDay) {
        QByteArray key = hmac("AWS4" + m_secretKey, day);
        key = hmac(key, m_region);
        key = hmac(key, m_service);
        m_key = hmac(key, "aws4_request");
        m_keyDay = day;
    }
    return hmac(m_key, stringToSign).toHex();
}

SigV4::Pairs SigV4::sign(const Request &request, const QByteArray &host, const QDateTime &when) const
{
    const QByteArray canonical = canonicalRequest(request, host, when);
    QByteArray signedNames;
    for (const auto &h : canonicalHeaders(request, host, when)) {
        if (!signedNames.isEmpty())
            signedNames += ';';
        signedNames += h.first;
    }
    const QByteArray authorization = "AWS4-HMAC-SHA256 Credential=" + m_accessKey + '/' + scope(when)
        + ", SignedHeaders=" + signedNames + ", Signature=" + signature(stringToSign(canonical, when), when);
    return { { QByteArrayLiteral("x-amz-date"), amzDate(when) },
        { QByteArrayLiteral("Authorization"), authorization } };
}

} // namespace Qvfs::S3
