// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_S3WORKER_H
#define QVFS_S3WORKER_H

#include "httpclient_p.h"
#include "s3client_p.h"
#include "workerbase.h"

#include <QByteArray>
#include <QUrl>

#include <functional>
#include <memory>

namespace Qvfs
{

/*!
 * The s3 worker: object stores that speak Amazon S3's API (AWS, Ceph's radosgw, MinIO ...)
 * on the http worker's engine (one HttpClient, one QNetworkAccessManager for the worker's
 * life), every request signed with SigV4 (S3::SigV4), path-style unless the AWS profile asks for
 * virtual-host style (addressing_style = virtual).
 *
 * URLs: s3://host[:port]/bucket/key over https, s3+http://host[:port]/bucket/key over
 * plain http (local stores); s3://host/ is the account's list of buckets, and a key's '/'
 * separates folders. A folder is a common prefix, or a zero-byte marker "dir/" (what
 * mkdir makes and what keeps a folder whose last file went); markers are never shown as
 * files. Listings come from ListObjectsV2 pages alone (sizes and times without a HEAD per
 * object); stat is a HEAD (the x-amz-meta-mtime rclone writes wins over Last-Modified).
 * Uploads are one PUT up to a cutoff and multipart above it (an object appears only
 * complete; a failed or killed upload is aborted). Copies inside one endpoint are done by
 * the server (CopyObject) through TreeCopy; a rename is a copy and a delete, not atomic.
 * Free space is unknown. See docs/s3.md.
 *
 * Keys: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, else the profile
 * AWS_PROFILE (or "default") of ~/.aws/credentials and ~/.aws/config
 * (AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE), else the application is asked (access
 * key as user, secret as password; its credential cache answers for later workers). The
 * region comes from AWS_REGION, AWS_DEFAULT_REGION or the profile (us-east-1 otherwise).
 */
class S3Worker : public WorkerBase
{
public:
    S3Worker();
    ~S3Worker() override;

protected:
    WorkerResult stat(const StatRequest &request) override;
    WorkerResult listDir(const ListRequest &request) override;
    WorkerResult get(const GetRequest &request) override;
    WorkerResult put(const PutRequest &request) override;
    /*! Downloads to a local file written by the worker itself (no byte through the application). */
    WorkerResult copyToFile(const FileCopyRequest &request) override;
    /*! Uploads a local file, read by the worker itself (no byte through the application). */
    WorkerResult copyFromFile(const FileCopyRequest &request) override;
    WorkerResult mkdir(const MkdirRequest &request) override;
    WorkerResult del(const DeleteRequest &request) override;
    WorkerResult rename(const RenameRequest &request) override;
    WorkerResult copy(const CopyRequest &request) override;
    /*! S3 tells no free space: passes with no figure (unknown) once the bucket is known to exist. */
    WorkerResult freeSpace(const FreeSpaceRequest &request) override;
    void setHost(const QUrl &host) override;

    // random access, read-only (s3worker_open.cpp)
    WorkerResult openFile(const OpenRequest &request, OpenedFile *file) override;
    /*! One ranged GET of the piece, If-Match the ETag seen at open (a replaced object: ErrSourceChanged). */
    WorkerResult readAt(qint64 offset, char *buffer, qint64 length, qint64 *bytesRead) override;
    WorkerResult fileSize(qint64 *size) override;
    WorkerResult closeFile() override;

private:
    friend class S3CopyBackend; // s3copybackend.cpp: the copy primitives on m_s3

    /*! What is at a location: nothing, an object (a file) or a folder. */
    struct Found
    {
        enum Kind { Nothing, File, Folder } kind = Nothing;
        S3::ObjectInfo info; //!< of a file
        bool isBucketRoot = false;
    };

    /*! Makes the client on first use and sets its keys (asking the application if needed). */
    WorkerResult begin(const QUrl &url, S3::Location *at);
    /*! \a r as the worker's result (ErrCancelled when killed). */
    WorkerResult result(const S3::Result &r);
    /*! Looks up \a at: a HEAD of the key, then whether any key starts with "key/". */
    WorkerResult find(const S3::Location &at, Found *found);
    /*! begin() and find() of \a url, asking for keys again once when the ones given are refused. */
    WorkerResult beginAndFind(const QUrl &url, S3::Location *at, Found *found);
    /*! \a r of reading the object at \a at; an object that does not exist but names a folder: ErrIsDirectory. */
    WorkerResult readResult(const S3::Location &at, const S3::Result &r);
    /*! Whether any key starts with \a prefix (a folder's marker counts). */
    S3::Result hasKeysUnder(const S3::Location &at, const QByteArray &prefix, bool *any);
    /*! After \a key went: keeps its folder (writes its marker when nothing else is in it). */
    S3::Result keepParentFolder(const S3::Location &at);
    /*! Deletes every key under \a prefix, 1,000 a request; \a removed counts them. */
    S3::Result deletePrefix(const S3::Location &at, const QByteArray &prefix, qint64 *removed);
    /*! What an upload reads from: the application's data or a local file. */
    struct Source
    {
        qint64 size = -1; //!< -1: unknown
        /*! Appends to \a buffer until it holds \a limit bytes; false at the end of the data (or on kill). */
        std::function<bool(QByteArray *buffer, qint64 limit)> fill;
    };
    /*!
     * Writes \a source to \a at (the URL \a url): one PUT when it ends within the cutoff,
     * else a multipart upload (PartUploads), aborted on failure or kill. \a mtime (-1: none)
     * goes into x-amz-meta-mtime.
     */
    WorkerResult upload(
        const QUrl &url, const S3::Location &at, bool overwrite, qint64 mtime, qint64 mtimeNs, const Source &source);
    /*! One listing or stat entry. */
    void addEntry(QByteArrayView name, bool folder, qint64 size, std::optional<qint64> mtime, Details details);

    /*! Keys from the environment or the AWS files; false when none are configured there. */
    bool configuredKeys(S3::Keys *keys, QByteArray *region) const;
    /*! Asks the application for keys (\a retry: the previous ones were refused). */
    bool askKeys(const QUrl &url, bool retry);

    std::unique_ptr<Http::HttpClient> m_http;
    std::unique_ptr<S3::Client> m_s3;
    bool m_keysAsked = false; //!< the keys came from the application
    bool m_keysSet = false;
    qint64 m_partSize = 8 * 1024 * 1024; //!< QVFS_S3_PART_SIZE
    qint64 m_uploadCutoff = 8 * 1024 * 1024; //!< QVFS_S3_UPLOAD_CUTOFF
    /*!
     * QVFS_S3_COPY_PART_SIZE: a copy inside the endpoint of an object larger than this goes
     * in parts of this size (UploadPartCopy): needed past CopyObject's 5 GiB, and each
     * request stays short next to the silence timeout while the server copies.
     */
    qint64 m_copyPartSize = qint64(512) * 1024 * 1024;
    int m_inFlight = 4; //!< parts going up at once, QVFS_S3_UPLOAD_CONCURRENCY

    // the open file (openFile())
    S3::Location m_open;
    qint64 m_openSize = 0;
    QByteArray m_openEtag; //!< sent as If-Match: a replaced object fails the read
};

} // namespace Qvfs

#endif
