// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SIGV4_P_H
#define QVFS_SIGV4_P_H

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QPair>

namespace Qvfs::S3
{

/*!
 * AWS Signature Version 4 for S3, written once: the canonical request, the string to sign,
 * the HMAC-SHA256 key chain (QMessageAuthenticationCode) and the Authorization header.
 *
 * The canonical URI is the path as sent, each segment percent-encoded once (S3 does not
 * normalise paths, so "//" and "." stay); the query is sorted by encoded name, then value;
 * the headers signed are the ones given (names in lower case, values trimmed, inner runs of
 * blanks folded), plus host and x-amz-date which sign() adds. The payload hash goes in as
 * given: the body's SHA-256 in hex, or "UNSIGNED-PAYLOAD" (the caller sends that over TLS
 * only). The secret never leaves this object: it is neither logged nor part of any text.
 */
class SigV4
{
public:
    using Pairs = QList<QPair<QByteArray, QByteArray>>;

    /*! One request to sign; names and values of the query raw (not yet percent-encoded). */
    struct Request
    {
        QByteArray method; //!< "GET", "PUT" ...
        QByteArray path; //!< raw bytes, starting with '/'; encoded here per segment
        Pairs query; //!< raw names and values, in any order
        Pairs headers; //!< headers to sign besides host and x-amz-date (any case)
        QByteArray payloadHash; //!< hex SHA-256 of the body, or "UNSIGNED-PAYLOAD"
    };

    /*! Signs for \a accessKey with \a secretKey in \a region for \a service ("s3"). */
    SigV4(const QByteArray &accessKey, const QByteArray &secretKey, const QByteArray &region,
        const QByteArray &service = QByteArrayLiteral("s3"));

    /*! The SHA-256 of the empty body, in hex (every request without one). */
    static QByteArray emptyPayloadHash();
    /*! The SHA-256 of \a data in lower-case hex (OpenSSL's libcrypto when built with it). */
    static QByteArray payloadHash(QByteArrayView data);
    /*! The MD5 of \a data in lower-case hex (what S3 answers as the ETag of a body it stored). */
    static QByteArray md5Hex(QByteArrayView data);
    /*!
     * \a bytes percent-encoded the AWS way: A-Z a-z 0-9 - . _ ~ as they are, every other
     * byte as %XY (upper-case hex); '/' kept when \a keepSlash (a path), else encoded.
     */
    static QByteArray uriEncode(QByteArrayView bytes, bool keepSlash);
    /*! The encoded query string of \a query, sorted as the canonical request has it. */
    static QByteArray canonicalQuery(const Pairs &query);
    /*! "20150830T123600Z" for \a when (taken as UTC). */
    static QByteArray amzDate(const QDateTime &when);

    /*! The canonical request of \a request with \a host and the date \a when (in x-amz-date). */
    QByteArray canonicalRequest(const Request &request, const QByteArray &host, const QDateTime &when) const;
    /*! The string to sign of \a canonicalRequest at \a when. */
    QByteArray stringToSign(const QByteArray &canonicalRequest, const QDateTime &when) const;
    /*! The signature (hex) of \a stringToSign with the key of the day of \a when. */
    QByteArray signature(const QByteArray &stringToSign, const QDateTime &when) const;
    /*! "day/region/service/aws4_request" of \a when. */
    QByteArray scope(const QDateTime &when) const;

    /*!
     * The headers to send with \a request to \a host (the Host header's value: "host" or
     * "host:port" as the request carries it) at \a when: x-amz-date and Authorization, in
     * that order (the caller also sends the headers of \a request and Host itself).
     */
    Pairs sign(const Request &request, const QByteArray &host, const QDateTime &when) const;

private:
    /*! The headers signed, sorted and normalised: (lower-case name, value). */
    Pairs canonicalHeaders(const Request &request, const QByteArray &host, const QDateTime &when) const;

    QByteArray m_accessKey;
    QByteArray m_secretKey;
    QByteArray m_region;
    QByteArray m_service;
    // the key of the day, kept: one chain of four HMACs a day rather than per request
    mutable QByteArray m_keyDay;
    mutable QByteArray m_key;
};

} // namespace Qvfs::S3

#endif
