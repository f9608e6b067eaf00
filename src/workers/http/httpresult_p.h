// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_HTTPRESULT_P_H
#define QVFS_HTTPRESULT_P_H

#include <QByteArray>
#include <QNetworkReply>
#include <QUrl>

namespace Qvfs::Http
{

/*!
 * The outcome of an engine call: success, or a Qvfs::Error code with the arguments
 * error.h documents for it (URLs fully encoded, without user information), ready for
 * WorkerResult::fail(error, arg1, arg2). Never contains a password.
 */
struct [[nodiscard]] Result
{
    int error = 0; //!< a Qvfs::Error, 0 on success
    QByteArray arg1;
    QByteArray arg2;
    int httpStatus = 0; //!< the HTTP status that decided the outcome, 0 if none (diagnostics, tests)

    bool ok() const { return error == 0; }
    static Result pass(int status = 0)
    {
        Result r;
        r.httpStatus = status;
        return r;
    }
    static Result fail(int code, const QByteArray &a1 = {}, const QByteArray &a2 = {}, int status = 0)
    {
        Result r;
        r.error = code;
        r.arg1 = a1;
        r.arg2 = a2;
        r.httpStatus = status;
        return r;
    }
    /*! Failure about \a url (the argument is the URL, fully encoded, without user information). */
    static Result fail(int code, const QUrl &url, int status = 0);
};

/*! The HTTP and WebDAV methods whose statuses are mapped differently. */
enum class Method { Get, Head, Propfind, Put, Delete, Mkcol, Move, Copy };

/*!
 * Maps an HTTP \a status answered to \a method on \a url to a Result, per method, never
 * wholesale: 2xx passes (a 207 is the caller's to read); 401 → ErrCannotAuthenticate,
 * 403 → ErrAccessDenied (never "does not exist"), 404/410 → ErrDoesNotExist (of the
 * source for MOVE/COPY), 405 on MKCOL → ErrAlreadyExists (elsewhere
 * ErrUnsupportedAction), 409 → ErrDoesNotExist naming the missing parent (of \a url, or
 * of \a dest for MOVE/COPY), 412 on MOVE/COPY → ErrAlreadyExists(\a dest), 413 →
 * ErrFileTooLarge, 414 → ErrNameTooLong, 423 → ErrLocked, 502 on MOVE/COPY →
 * ErrUnsupportedAction (the destination is on another server), 507 → ErrDiskFull, other
 * 4xx → ErrCannotRead/ErrCannotWrite/ErrCannotDelete/ErrCannotRename by method, 5xx →
 * ErrServerError(url, "HTTP <status> <reason>").
 */
Result statusResult(
    Method method, int status, const QUrl &url, const QUrl &dest = QUrl(), const QByteArray &reason = QByteArray());

/*!
 * Maps a transport failure (no HTTP status to go by) of a request to \a url: DNS failure
 * → ErrHostNotFound(host), refused or closed connections → ErrConnectionFailed(host,
 * detail), timeouts → ErrServerTimedOut(url), TLS failures → ErrUntrustedCertificate(host,
 * detail) when \a sslErrorText names certificate problems, else ErrConnectionFailed.
 * \a detail is Qt's technical text, kept as the second argument.
 */
Result networkResult(
    QNetworkReply::NetworkError error, const QUrl &url, const QString &detail, const QString &sslErrorText = QString());

/*! \a url fully encoded without user information: how URLs travel in error arguments. */
QByteArray urlArgument(const QUrl &url);

} // namespace Qvfs::Http

#endif
