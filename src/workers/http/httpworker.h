// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_HTTPWORKER_H
#define QVFS_HTTPWORKER_H

#include "davclient_p.h"
#include "httpclient_p.h"
#include "workerbase.h"

#include <QByteArray>
#include <QUrl>

#include <memory>

namespace Qvfs
{

/*!
 * The http, https, webdav and webdavs worker (aliases dav, davs), on the engine of
 * Qvfs::Http: one HttpClient (one QNetworkAccessManager) for the worker's whole life,
 * so connections are reused across requests and jobs.
 *
 * http(s) URLs are read-only: stat (HEAD), get, and copies to local files. The WebDAV
 * schemes add listings (PROPFIND Depth 1 parsed as it arrives; recursive listings
 * folder by folder here), mkdir (MKCOL, parents on request), delete (one DELETE for a
 * tree), rename (MOVE), copies inside one server (COPY), uploads through a unique
 * temporary name MOVEd onto the destination (AtomicUpload) and the quota (RFC 4331).
 * See docs/webdav.md.
 *
 * The engine's questions go to the application: passwords through askPassword() (the
 * application's credential cache answers for every worker after the first), untrusted
 * certificates through askTrust(); a certificate trusted "always" is pinned in
 * CertificatePins' file so later workers do not ask.
 */
class HttpWorker : public WorkerBase
{
public:
    HttpWorker();
    ~HttpWorker() override;

protected:
    WorkerResult stat(const StatRequest &request) override;
    WorkerResult get(const GetRequest &request) override;
    WorkerResult listDir(const ListRequest &request) override;
    WorkerResult mkdir(const MkdirRequest &request) override;
    WorkerResult del(const DeleteRequest &request) override;
    WorkerResult rename(const RenameRequest &request) override;
    WorkerResult copy(const CopyRequest &request) override;
    WorkerResult put(const PutRequest &request) override;
    WorkerResult copyToFile(const FileCopyRequest &request) override;
    WorkerResult copyFromFile(const FileCopyRequest &request) override;
    /*!
     * WebDAV: the user's quota there (RFC 4331: quota-available-bytes as available and
     * free, quota-used-bytes as used, their sum as total), by a Depth 0 PROPFIND asking
     * for those two properties only. A server that sends neither (nginx's dav-ext, Apache's
     * mod_dav_fs), and plain http(s), fail with ErrUnsupportedAction naming the URL.
     */
    WorkerResult freeSpace(const FreeSpaceRequest &request) override;
    void setHost(const QUrl &host) override;

    // random access, read-only (httpworker_open.cpp)
    WorkerResult openFile(const OpenRequest &request, OpenedFile *file) override;
    WorkerResult readAt(qint64 offset, char *buffer, qint64 length, qint64 *bytesRead) override;
    WorkerResult writeAt(qint64 offset, QByteArrayView data) override;
    WorkerResult append(QByteArrayView data, qint64 *offset) override;
    WorkerResult truncate(qint64 length) override;
    WorkerResult fileSize(qint64 *size) override;
    WorkerResult closeFile() override;

private:
    friend class DavCopyBackend; // davcopybackend.cpp: the copy primitives on m_dav
    /*! Makes the client on first use (after exec() made the QCoreApplication). */
    void ensureClient();
    /*! Starts a request about \a url: its scheme decides how URLs are reported back. */
    void begin(const QUrl &url);
    /*! \a r as the worker's result; URL arguments on the wire scheme go back to the request's. */
    WorkerResult result(const Http::Result &r);
    /*! \a url (http or https) on the scheme of the running request. */
    QUrl toRequestScheme(const QUrl &url) const;
    QByteArray toRequestScheme(const QByteArray &arg) const;
    /*! Whether \a url is on one of the WebDAV schemes. */
    static bool isDav(const QUrl &url);
    /*! One entry of a listing or stat from \a e, named \a name. */
    void addDavEntry(QByteArrayView name, const Http::DavEntry &e, Details details);

    // the engine's callbacks
    std::optional<Http::Credentials> answerCredentials(const Http::AuthQuestion &q);
    Http::TrustDecision answerTrust(const Http::CertificateQuestion &q);
    void onRedirected(const QUrl &from, const QUrl &to, int status);

    /*!
     * GETs \a url from \a offset into \a handler (see HttpClient::get()); on WebDAV a
     * collection is ErrIsDirectory, also when the server redirects to its slash form.
     */
    WorkerResult download(const QUrl &url, qint64 offset, const Http::HttpClient::GetHandler &handler);

    /*! What an upload reads from: the application's data, a spool file or a local file. */
    struct Source
    {
        qint64 size = -1;
        Http::UploadDevice::Pull pull;
    };
    /*!
     * Writes \a source to \a url through a unique temporary name MOVEd into place
     * (AtomicUpload), after the engine's checks. \a mtime (-1: none) is asked for and
     * ResultKey::TimesKept says whether it held.
     */
    WorkerResult upload(const QUrl &url, bool overwrite, qint64 mtime, const Source &source);

    std::unique_ptr<Http::HttpClient> m_http;
    std::unique_ptr<Http::DavClient> m_dav;
    QString m_hostOrigin; //!< the server setHost() named last ("http://host:port")
    QString m_hostUser; //!< and its user
    QString m_scheme; //!< the running request's scheme (webdav, webdavs, http, https)
    QUrl m_requestUrl; //!< the running request's (first) URL
    bool m_davRequest = false;
    /*! A GET on WebDAV was redirected to the same path with a slash: a collection. */
    bool m_redirectedToCollection = false;
    bool m_expectSlashRedirect = false;

    // the open file (openFile())
    QUrl m_openUrl; //!< where its reads go (http or https, after redirects)
    QByteArray m_openValidator; //!< its strong ETag, sent as If-Range
    qint64 m_openNext = 0; //!< where the last read ended (a server without ranges reads in order)
    bool m_openSeekable = false; //!< the server announced Accept-Ranges: bytes
    QByteArray m_ahead; //!< read ahead of a reader in order (at most a piece and 4 MiB)
    qint64 m_aheadOffset = -1; //!< the file offset of m_ahead's first byte; -1: none
    bool m_aheadEof = false; //!< m_ahead ends where the file ends
};

} // namespace Qvfs

#endif
