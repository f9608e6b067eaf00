// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_S3CLIENT_P_H
#define QVFS_S3CLIENT_P_H

#include "httpclient_p.h"
#include "sigv4_p.h"

#include <QByteArray>
#include <QList>
#include <QUrl>

#include <functional>
#include <memory>
#include <optional>

namespace Qvfs::S3
{

class XmlReader;

using Http::Result;

/*! The keys a request is signed with (never logged, never in an error text). */
struct Keys
{
    QByteArray accessKey;
    QByteArray secretKey;
    QByteArray sessionToken; //!< temporary credentials: sent as x-amz-security-token
    bool isValid() const { return !accessKey.isEmpty() && !secretKey.isEmpty(); }
};

/*!
 * Where an s3:// or s3+http:// URL points: the endpoint (https://host:port or
 * http://host:port), the bucket (empty: the account's list of buckets) and the key
 * (empty: the bucket's root; a folder's key ends with '/'). Keys are raw bytes.
 */
struct Location
{
    QUrl url; //!< the URL as asked (what errors name)
    QUrl endpoint; //!< http(s)://host:port/
    QByteArray bucket;
    QByteArray key;

    /*! \a url split; false when it is no s3 URL (scheme, host) or its path is not a bucket and key. */
    static bool parse(const QUrl &url, Location *out);
    /*! The bucket alone (no key), its URL kept: for requests about the bucket that name \a url in errors. */
    Location bucketOnly() const;
    /*! The same endpoint and bucket with another \a key, its URL made to match. */
    Location withKey(const QByteArray &key) const;
    /*! Whether the endpoint speaks TLS. */
    bool isTls() const { return endpoint.scheme() == QLatin1String("https"); }
};

/*! An object or a common prefix of a listing, or a bucket of the account's list. */
struct ListEntry
{
    QByteArray key; //!< the whole key (a prefix ends with '/'), or the bucket's name
    bool isPrefix = false; //!< a CommonPrefixes entry (or a bucket): a folder
    qint64 size = -1;
    std::optional<qint64> mtime; //!< LastModified (or a bucket's CreationDate)
    QByteArray etag;
    void clear();
};

/*! What HEAD says about an object. */
struct ObjectInfo
{
    qint64 size = -1;
    std::optional<qint64> mtime; //!< x-amz-meta-mtime when set (rclone's), else Last-Modified
    QByteArray etag;
    QByteArray contentType;
};

/*!
 * The S3 operations of the worker on the http worker's engine (HttpClient: one
 * QNetworkAccessManager, its timeouts, kill checks, TLS rules), each request signed with
 * SigV4. Requests are path-style (https://host/bucket/key; virtual-host style when asked: setVirtualHosted()) and never
 * follow redirects (a signature is for one URL). Bodies the client sends are hashed for x-amz-content-sha256; parts are
 * held in memory while they go up, so what an upload holds is bounded by the part size.
 *
 * Errors are mapped from S3's error codes, each naming the URL the call was about:
 * SignatureDoesNotMatch and InvalidAccessKeyId → ErrCannotAuthenticate,
 * RequestTimeTooSkewed → ErrClockSkewed, NoSuchKey, NoSuchBucket and NoSuchUpload →
 * ErrDoesNotExist, AccessDenied → ErrAccessDenied, BucketAlreadyExists and
 * BucketAlreadyOwnedByYou → ErrAlreadyExists, EntityTooLarge → ErrFileTooLarge, other 4xx →
 * by method (ErrCannotRead, ErrCannotWrite, ErrCannotDelete), 5xx → ErrServerError with
 * the status and code.
 */
class Client
{
public:
    explicit Client(Http::HttpClient *http);
    ~Client();

    void setKeys(const Keys &keys);
    const Keys &keys() const { return m_keys; }
    /*! The region signed for (radosgw takes any; AWS wants the bucket's). Default us-east-1. */
    void setRegion(const QByteArray &region);
    /*! Takes \a other's keys, region and clock offset (a client for another thread). */
    void configureLike(const Client &other);
    /*! Signs as if the clock were \a seconds ahead (tests of a skewed clock). */
    void setClockOffset(qint64 seconds) { m_clockOffset = seconds; }
    /*!
     * Virtual-host style (default off: path-style): a request about a bucket goes to
     * https://bucket.host/key instead of https://host/bucket/key, when the bucket's name
     * can be a host name's label (hostsBucket()); the account's list of buckets, and
     * buckets whose names cannot, stay path-style.
     */
    void setVirtualHosted(bool on) { m_virtualHosted = on; }
    bool isVirtualHosted() const { return m_virtualHosted; }
    /*!
     * Whether \a at's bucket can be addressed as a host: a name of an endpoint that is not
     * an IP address, and a bucket name of 3 to 63 lower-case letters, digits and inner
     * hyphens (no dot: a certificate for *.host names one label only).
     */
    static bool hostsBucket(const Location &at);

    /*! One signed request. */
    struct Call
    {
        QByteArray method = "GET";
        Location location;
        SigV4::Pairs query;
        SigV4::Pairs headers; //!< signed too
        QByteArray body; //!< sent whole, its SHA-256 signed
        bool write = false; //!< a request that changes something (sent once at most)
        bool ignoreCancel = false; //!< clean-up after a kill
        /*! The body of a 2xx answer as it arrives; unset: kept in the response (1 MiB at most). */
        std::function<Result(QNetworkReply *)> onData;
        std::function<Result(QNetworkReply *, int)> onHeaders;
    };
    /*!
     * Sends \a call; a 2xx passes, anything else is mapped to an error about \a
     * call.location.url (see the class). \a response (may be null) receives the answer.
     */
    Result send(Call &call, Http::HttpClient::Response *response = nullptr);

    /*! The account's buckets, each as a folder entry. */
    Result listBuckets(const Location &at, const std::function<bool(const ListEntry &)> &onEntry);
    /*!
     * Lists the keys under \a prefix of \a at's bucket with ListObjectsV2 (1,000 a page,
     * encoding-type=url), each page parsed as it arrives; with \a delimited, Delimiter=/
     * (common prefixes come as folder entries). \a onEntry returning false stops (ErrCancelled).
     */
    Result list(const Location &at, const QByteArray &prefix, bool delimited,
        const std::function<bool(const ListEntry &)> &onEntry, int maxKeys = 1000);
    /*! HEAD of the object \a at. A missing object is ErrDoesNotExist. */
    Result head(const Location &at, ObjectInfo *info);
    /*! Whether the bucket exists (HEAD of the bucket). */
    Result headBucket(const Location &at);
    /*!
     * GETs the object \a at from \a offset (up to \a length bytes, -1: to the end), each
     * chunk to \a onChunk as it arrives (the server waits while it blocks). \a onInfo gets
     * the object's details before the first byte. With \a ifMatch (an ETag), an object that
     * is no longer that one fails with ErrSourceChanged (412).
     */
    Result get(const Location &at, qint64 offset, qint64 length, const std::function<void(const ObjectInfo &)> &onInfo,
        const std::function<bool(QByteArrayView)> &onChunk, const QByteArray &ifMatch = QByteArray());
    /*! PUTs \a data whole as the object \a at, with \a headers (x-amz-meta-mtime ...). */
    Result put(const Location &at, const QByteArray &data, const SigV4::Pairs &headers = {});
    /*! Starts a multipart upload of \a at; its id in \a uploadId. */
    Result createMultipart(const Location &at, const SigV4::Pairs &headers, QByteArray *uploadId);
    /*! Uploads part \a number; checks that the ETag answered is \a data's MD5 and keeps it in \a etag. */
    Result uploadPart(
        const Location &at, const QByteArray &uploadId, int number, const QByteArray &data, QByteArray *etag);
    /*! Completes the upload with the parts' ETags, in order from part 1. */
    Result completeMultipart(const Location &at, const QByteArray &uploadId, const QList<QByteArray> &etags);
    /*! Aborts the upload (runs even after a kill, so no part is left stored). */
    Result abortMultipart(const Location &at, const QByteArray &uploadId);
    /*! The server copies \a from onto \a to (CopyObject; metadata copied). */
    Result copyObject(const Location &from, const Location &to);
    /*!
     * The server copies \a from (as HEAD described it: \a info) onto \a to in parts of
     * \a partSize bytes (a multipart upload of UploadPartCopy requests: CopyObject takes
     * at most 5 GiB), more when 10,000 parts would not hold it. Each part names the
     * source's ETag (x-amz-copy-source-if-match), so a source replaced meanwhile fails
     * with ErrSourceChanged; the object's modification time and type go with it
     * (x-amz-meta-mtime, Content-Type). Any failure or kill aborts the upload: \a to
     * appears complete or not at all. \a progress gets the bytes copied after each part.
     */
    Result copyObjectInParts(const Location &from, const ObjectInfo &info, const Location &to, qint64 partSize,
        const std::function<void(qint64)> &progress);
    /*! Deletes one object (a missing one passes: S3 answers 204 either way). */
    Result deleteObject(const Location &at);
    /*! Deletes \a keys (at most 1,000) of \a at's bucket with one DeleteObjects. */
    Result deleteObjects(const Location &at, const QList<QByteArray> &keys);
    /*! Makes the bucket \a at (no location constraint). */
    Result createBucket(const Location &at);
    /*! Deletes the empty bucket \a at. */
    Result deleteBucket(const Location &at);

    /*! The Host header of \a endpoint as Qt sends it ("host" or "host:port"). */
    static QByteArray hostHeader(const QUrl &endpoint);

private:
    /*!
     * The onData of a call whose answer \a reader reads as it arrives: a handler of the
     * reader that set \a stopped stops the request (ErrCancelled), ill-formed XML fails it
     * with ErrServerError about \a url.
     */
    std::function<Result(QNetworkReply *)> feedReader(XmlReader *reader, const bool *stopped, const QUrl &url) const;
    /*! A bodiless write \a method on the bucket of \a at (make it, delete it). */
    Result bucketRequest(const QByteArray &method, const Location &at);
    Result errorResult(const Call &call, int status, const QByteArray &body) const;

    Http::HttpClient *m_http;
    Keys m_keys;
    QByteArray m_region = "us-east-1";
    std::unique_ptr<SigV4> m_signer;
    qint64 m_clockOffset = 0;
    bool m_virtualHosted = false;
};

} // namespace Qvfs::S3

#endif
