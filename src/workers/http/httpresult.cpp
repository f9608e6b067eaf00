// SPDX-License-Identifier: LGPL-2.1-or-later
#include "error.h"
#include "httpresult_p.h"
#include "url.h"
#include "url_p.h"

namespace Qvfs::Http
{

QByteArray urlArgument(const QUrl &url)
{
    return url.adjusted(QUrl::RemoveUserInfo).toEncoded();
}

Result Result::fail(int code, const QUrl &url, int status)
{
    return fail(code, urlArgument(url), QByteArray(), status);
}

namespace
{

QUrl parentOf(const QUrl &url)
{
    QUrl p = Url::parent(url);
    if (!p.path().endsWith(QLatin1Char('/')))
        p.setPath(p.path(QUrl::FullyEncoded) + QLatin1Char('/'), QUrl::TolerantMode);
    return p;
}

int genericError(Method m)
{
    switch (m) {
    case Method::Get:
    case Method::Head:
    case Method::Propfind:
        return ErrCannotRead;
    case Method::Delete:
        return ErrCannotDelete;
    case Method::Move:
        return ErrCannotRename;
    case Method::Put:
    case Method::Mkcol:
    case Method::Copy:
        return ErrCannotWrite;
    }
    return ErrCannotRead;
}

} // namespace

Result statusResult(Method m, int status, const QUrl &url, const QUrl &dest, const QByteArray &reason)
{
    if (status >= 200 && status < 300)
        return Result::pass(status);
    const bool twoUrls = (m == Method::Move || m == Method::Copy) && !dest.isEmpty();
    // the URL a write error is about: the destination of MOVE/COPY
    const QUrl written = twoUrls ? dest : url;
    switch (status) {
    case 401:
        return Result::fail(ErrCannotAuthenticate, url, status);
    case 403:
        return Result::fail(ErrAccessDenied, url, status);
    case 404:
    case 410:
        return Result::fail(ErrDoesNotExist, url, status);
    case 405:
        if (m == Method::Mkcol)
            return Result::fail(ErrAlreadyExists, url, status);
        return Result::fail(ErrUnsupportedAction, url, status);
    case 409:
        // RFC 4918: an intermediate collection is missing. (nginx also answers 409 to a
        // MKCOL or DELETE of a collection without its trailing slash; we always send it.)
        if (m == Method::Get || m == Method::Head || m == Method::Propfind)
            return Result::fail(ErrCannotRead, url, status);
        if (m == Method::Delete)
            return Result::fail(ErrCannotDelete, url, status);
        return Result::fail(ErrDoesNotExist, parentOf(written), status);
    case 412:
        if (twoUrls)
            return Result::fail(ErrAlreadyExists, dest, status);
        return Result::fail(ErrSourceChanged, url, status);
    case 413:
        return Result::fail(ErrFileTooLarge, written, status);
    case 414:
        return Result::fail(ErrNameTooLong, url, status);
    case 423:
        return Result::fail(ErrLocked, url, status);
    case 502:
        if (twoUrls)
            return Result::fail(ErrUnsupportedAction, dest, status);
        break;
    case 507:
        return Result::fail(ErrDiskFull, written, status);
    default:
        break;
    }
    if (status >= 400 && status < 500)
        return Result::fail(genericError(m), written, status);
    QByteArray text = "HTTP " + QByteArray::number(status);
    if (!reason.isEmpty())
        text += ' ' + reason.left(200);
    return Result::fail(ErrServerError, urlArgument(url), text, status);
}

Result networkResult(
    QNetworkReply::NetworkError error, const QUrl &url, const QString &detail, const QString &sslErrorText)
{
    const QByteArray d = detail.toUtf8();
    switch (error) {
    case QNetworkReply::NoError:
        return Result::pass();
    case QNetworkReply::HostNotFoundError:
    case QNetworkReply::ProxyNotFoundError:
        return Result::fail(ErrHostNotFound, url.host(QUrl::FullyEncoded).toUtf8());
    case QNetworkReply::TimeoutError:
    case QNetworkReply::ProxyTimeoutError:
        return Result::fail(ErrServerTimedOut, url); // the server, not this worker
    case QNetworkReply::SslHandshakeFailedError:
        if (!sslErrorText.isEmpty())
            return Result::fail(ErrUntrustedCertificate, Url::Detail::hostDisplay(url), sslErrorText.toUtf8());
        return Result::fail(ErrConnectionFailed, Url::Detail::hostDisplay(url), d);
    case QNetworkReply::ProtocolUnknownError:
        return Result::fail(ErrUnsupportedProtocol, url.scheme().toUtf8());
    case QNetworkReply::OperationCanceledError:
        return Result::fail(ErrCancelled);
    default:
        return Result::fail(ErrConnectionFailed, Url::Detail::hostDisplay(url), d);
    }
}

} // namespace Qvfs::Http
