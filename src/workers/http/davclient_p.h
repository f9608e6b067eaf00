// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_DAVCLIENT_P_H
#define QVFS_DAVCLIENT_P_H

#include "httpclient_p.h"
#include "propfindparser_p.h"
#include "uploaddevice_p.h"

#include <QUrl>

#include <functional>
#include <optional>

namespace Qvfs::Http
{

/*!
 * The WebDAV operations of the worker, on an HttpClient (whose callbacks decide kill,
 * questions and redirect reports).
 *
 * Collections are always addressed with a trailing slash and other resources without
 * one (nginx answers 409 to a MKCOL or DELETE of a collection without it, Apache a 301).
 * Listings ask for an explicit property list (propfindRequestBody()) and parse the
 * reply as it arrives. Statuses are mapped per method (statusResult()); where a status
 * is ambiguous the client asks the server once more: a 405 on MKCOL is "already exists"
 * only if something is there, a 500 on MOVE/COPY (Apache, missing parent) is "does not
 * exist" only if the destination's folder is missing.
 *
 * Server differences met (nginx 1.22 + dav-ext 3.0, Apache 2.4 mod_dav_fs): nginx
 * answers PUT into a missing folder with 500 (after reading the whole body) and creates
 * missing folders on MOVE/COPY; it sets the modification time from a PUT's Date header
 * and sends neither getetag nor getcontenttype. Apache sends both, answers 409 to a PUT
 * into a missing folder and 500 to a MOVE into one, ignores X-OC-Mtime and Date, and
 * follows a MOVE's Destination to any host name.
 */
class DavClient
{
public:
    /*! What the caller knows about a resource; Unknown costs a Depth 0 PROPFIND. */
    enum class Kind { Unknown, File, Collection };

    /*! Works on \a http, which must outlive this object. */
    explicit DavClient(HttpClient *http);

    HttpClient *http() const { return m_http; }

    /*!
     * Stats \a url (PROPFIND Depth 0, HTTP/2 where offered). \a entry gets the name from
     * the URL (raw bytes) and the properties from the reply.
     * Errors: ErrDoesNotExist, ErrCannotAuthenticate, ErrAccessDenied, transport errors,
     * ErrServerError for a malformed reply, ErrUnsupportedAction if the server does not
     * speak WebDAV there.
     */
    Result stat(const QUrl &url, DavEntry *entry);

    /*! The quota properties of RFC 4331 of one resource; -1 where the server sent none. */
    struct Quota
    {
        qint64 available = -1; //!< quota-available-bytes
        qint64 used = -1; //!< quota-used-bytes
    };
    /*!
     * Asks for the quota of \a url (PROPFIND Depth 0 for quota-available-bytes and
     * quota-used-bytes only; nothing else is in the request). A value the server marks
     * as not found (a 404 propstat) or sends in another form than a byte count (ownCloud's
     * negative "unknown" and "unlimited" codes) stays -1; the call still passes.
     * Errors: those of stat().
     */
    Result quota(const QUrl &url, Quota *quota);

    /*! Figures of one listing, for tests and benchmarks. */
    struct ListStats
    {
        qint64 bytes = 0; //!< body bytes parsed
        qint64 chunks = 0; //!< pieces the body arrived in
        qint64 bytesAtFirstEntry = -1; //!< body bytes received when the first entry was reported
        qint64 entries = 0;
        qint64 skipped = 0; //!< responses the parser skipped (unsafe names, not members)
    };

    /*!
     * Lists the collection \a url (PROPFIND Depth 1 on HTTP/1.1, parsed as the body
     * arrives): \a onEntry gets each member as soon as its <response> is complete;
     * returning false stops the listing (the call still passes). The collection itself
     * is not reported.
     * Errors: ErrIsNotDirectory if \a url is a file, ErrDoesNotExist, and those of stat().
     */
    Result list(const QUrl &url, const std::function<bool(const DavEntry &)> &onEntry, ListStats *stats = nullptr,
        const PropfindParser::UnsafeNameHandler &onUnsafeName = {});

    /*!
     * Creates the collection \a url (MKCOL). ErrAlreadyExists if something is there,
     * ErrDoesNotExist naming the parent if that is missing.
     */
    Result mkcol(const QUrl &url);

    /*!
     * Deletes \a url: a file, or a collection with everything in it in one request
     * (DELETE, Depth infinity). Without \a recursive, a collection with members fails with
     * ErrDirectoryNotEmpty. Partial failures (207) report the first member that failed.
     */
    Result remove(const QUrl &url, bool recursive, Kind kind = Kind::Unknown);

    /*!
     * Moves (renames) \a from to \a to on the same server: MOVE with Overwrite F, or T
     * when \a overwrite. ErrAlreadyExists(\a to) if the destination exists and may not be
     * replaced, ErrDoesNotExist for a missing source or destination folder,
     * ErrIdenticalFiles, ErrCycle for a collection moved into itself,
     * ErrUnsupportedAction when the server cannot (another server: 502).
     */
    Result move(const QUrl &from, const QUrl &to, bool overwrite, Kind kind = Kind::Unknown);
    /*! Copies on the server (COPY, Depth infinity for collections); errors as move(). */
    Result copy(const QUrl &from, const QUrl &to, bool overwrite, Kind kind = Kind::Unknown);

    /*! Options of put(). */
    struct PutOptions
    {
        bool overwrite = false;
        std::optional<qint64> mtime; //!< seconds since the epoch, sent as X-OC-Mtime and Date
    };
    /*! What put() achieved. */
    struct PutOutcome
    {
        bool mtimeKept = false; //!< the server keeps the requested mtime (X-OC-Mtime accepted, or seen after)
        QUrl url; //!< where the data is now (http(s))
    };

    /*!
     * Writes \a size bytes pulled from \a pull to \a url, never buffered whole.
     *
     * The data goes to a unique temporary name in the destination folder
     * (".qvfs-<16 hex>.part") and is then MOVEd onto \a url with Overwrite F (T when
     * overwriting), so an existing file is replaced only by a complete one and a racing
     * writer is never overwritten unasked. On failure or kill the temporary is deleted.
     * A Depth 0 PROPFIND of \a url (and of its folder when \a url is missing) comes
     * first: it fails early (ErrAlreadyExists, ErrIsDirectory, ErrDoesNotExist for the
     * folder, ErrIsNotDirectory) and settles authentication before a byte of the body is
     * read, because a body already sent cannot be sent again after a 401.
     * A source that gives fewer or more than \a size bytes fails with ErrCannotWrite.
     * With PutOptions::mtime the time is asked for with X-OC-Mtime (ownCloud, Nextcloud,
     * rclone) and Date (nginx); PutOutcome::mtimeKept says whether it held.
     */
    Result put(const QUrl &url, qint64 size, const UploadDevice::Pull &pull, const PutOptions &options,
        PutOutcome *outcome = nullptr);

    // ---- the steps of put(), for a worker that sequences them itself (AtomicUpload) ----

    /*!
     * The checks put() makes before any byte: \a url is not a collection, does not exist
     * unless \a overwrite, and its folder exists and is a collection (ErrIsDirectory,
     * ErrAlreadyExists, ErrDoesNotExist naming the folder, ErrIsNotDirectory). Runs on
     * the HTTP/1.1 connection the upload will use, so authentication is settled there.
     */
    Result checkPutDestination(const QUrl &url, bool overwrite);
    /*!
     * One streamed PUT of \a size bytes from \a pull to exactly \a url (no temporary),
     * sent once at most; with \a mtime, X-OC-Mtime and Date ask the server to keep it
     * and \a mtimeAccepted says whether the server confirmed (X-OC-MTime: accepted).
     */
    Result upload(const QUrl &url, qint64 size, const UploadDevice::Pull &pull, std::optional<qint64> mtime = {},
        bool *mtimeAccepted = nullptr);
    /*!
     * DELETE \a url, best effort, even after a kill (a temporary's clean-up). With \a
     * afterAbortedPut, a 404 is looked at again a few times within a second: a server may
     * still be starting the PUT that was cut (Apache answered the DELETE first, then
     * created the file).
     */
    void removeQuietly(const QUrl &url, bool afterAbortedPut = false);

    /*! \a url with a trailing slash (a collection), on the wire scheme, without user information. */
    static QUrl collectionUrl(const QUrl &url);
    /*! \a url without trailing slash (except the root), on the wire scheme, without user information. */
    static QUrl resourceUrl(const QUrl &url);
    /*! A MIME type from the name's extension, for servers that send none (nginx). */
    static QByteArray guessMimeType(QByteArrayView name);

private:
    Result propfind(const QUrl &url, int depth, PropfindParser::Mode mode,
        const std::function<bool(const DavEntry &)> &onEntry, DavEntry *self, ListStats *stats, bool http2,
        const PropfindParser::UnsafeNameHandler &onUnsafeName = {}, DavProperties props = defaultDavProperties);
    // a Depth 0 \a req: the one response, read whole, then parsed
    Result propfindOne(HttpClient::Request &req, PropfindParser::Mode mode, DavEntry *self);
    // stat() on the connection a write will use next (HTTP/1.1): the preflight of a
    // write settles authentication there, before a body that cannot be sent twice
    Result statBeforeWrite(const QUrl &url, DavEntry *entry);
    // \a kind when known; when Unknown, what statBeforeWrite() finds \a url to be
    Result resolveKind(const QUrl &url, Kind *kind);
    Result statWith(const QUrl &url, DavEntry *entry, bool http2);
    // the folder \a url: passes if it is a collection; ErrIsNotDirectory, ErrDoesNotExist
    Result checkFolder(const QUrl &url);
    Result copyOrMove(const QByteArray &method, const QUrl &from, const QUrl &to, bool overwrite, Kind kind);
    Result multistatusError(Method method, const QUrl &url, const QByteArray &body, const QUrl &dest);

    HttpClient *m_http;
};

} // namespace Qvfs::Http

#endif
