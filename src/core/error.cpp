// SPDX-License-Identifier: LGPL-2.1-or-later
#include "error.h"
#include "url.h"

#include <QCoreApplication>
#include <QUrl>

namespace Qvfs
{

// Arguments that are URLs travel fully encoded; show them the way people read them.
static QString shown(const QStringList &args, int i)
{
    const QString a = args.value(i);
    const qsizetype colon = a.indexOf(QLatin1Char(':'));
    if (colon > 0 && a.mid(colon, 3) == QLatin1String("://")) {
        const QUrl u = QUrl::fromEncoded(a.toUtf8(), QUrl::StrictMode);
        if (u.isValid())
            return Url::displayString(u);
    }
    return a;
}

QString errorText(int code, const QStringList &args)
{
    const QString a0 = shown(args, 0);
    const QString a1 = shown(args, 1);
    auto tr = [](const char *text) {
        return QCoreApplication::translate("Qvfs", text);
    };
    switch (code) {
    case NoError:
        return QString();
    case ErrCancelled:
        return tr("The operation was cancelled.");
    case ErrDoesNotExist:
        return tr("%1 does not exist.").arg(a0);
    case ErrAccessDenied:
        return tr("Access denied to %1.").arg(a0);
    case ErrIsDirectory:
        return tr("%1 is a folder, but a file was expected.").arg(a0);
    case ErrIsNotDirectory:
        return tr("%1 is a file, but a folder was expected.").arg(a0);
    case ErrAlreadyExists:
        return tr("%1 already exists.").arg(a0);
    case ErrDiskFull:
        return tr("Could not write %1: the disk is full.").arg(a0);
    case ErrWorkerDied:
        return tr("The worker process for %1 died unexpectedly.").arg(a0);
    case ErrProtocolError:
        return tr("The worker process sent malformed data (%1).").arg(a0);
    case ErrTimedOut:
        return tr("The worker process for %1 stopped responding.").arg(a0);
    case ErrUnsupportedProtocol:
        return tr("The protocol %1 is not supported.").arg(a0);
    case ErrUnsupportedAction:
        return tr("This action is not supported for %1.").arg(a0);
    case ErrMalformedUrl:
        return tr("Malformed URL: %1").arg(a0);
    case ErrCannotRead:
        return tr("Could not read %1.").arg(a0);
    case ErrCannotWrite:
        return tr("Could not write %1.").arg(a0);
    case ErrIdenticalFiles:
        return tr("%1 cannot be copied onto itself.").arg(a0);
    case ErrCannotDelete:
        return tr("Could not delete %1.").arg(a0);
    case ErrCannotRename:
        return tr("Could not rename %1.").arg(a0);
    case ErrCannotCreateWorker:
        return tr("Could not start the worker process for %1: %2").arg(a0, a1);
    case ErrVersionMismatch:
        return tr("The worker process speaks protocol version %1, but version %2 is needed.").arg(a0, a1);
    case ErrDirectoryNotEmpty:
        return tr("The folder %1 is not empty.").arg(a0);
    case ErrNameTooLong:
        return tr("The name of %1 is too long.").arg(a0);
    case ErrSymlinkLoop:
        return tr("Too many levels of symbolic links at %1.").arg(a0);
    case ErrCannotAuthenticate:
        return tr("Authentication failed for %1.").arg(a0);
    case ErrHostNotFound:
        return tr("The host %1 was not found.").arg(a0);
    case ErrConnectionFailed:
        return tr("Could not connect to %1: %2").arg(a0, a1);
    case ErrCycle:
        return tr("%1 cannot be copied or moved into itself.").arg(a0);
    case ErrSourceChanged:
        return tr("%1 changed while it was being copied.").arg(a0);
    case ErrReadOnlyFilesystem:
        return tr("Could not write %1: the file system is read-only.").arg(a0);
    case ErrUnknownHostKey:
        return tr("The host key of %1 is not known (fingerprint %2).").arg(a0, a1);
    case ErrUntrustedCertificate:
        return tr("The certificate of %1 is not trusted: %2").arg(a0, a1);
    case ErrNotAnswered:
        return tr("A question about %1 was not answered.").arg(a0);
    case ErrUnsafeName:
        return tr("Refusing the unsafe name %1.").arg(a0);
    case ErrInternal:
        return tr("Unexpected error: %1").arg(a0);
    case ErrFileTooLarge:
        return tr("%1 is too large for the destination.").arg(a0);
    case ErrServerError:
        return tr("The server reported an error for %1: %2").arg(a0, a1);
    default:
        return tr("Unknown error %1 (%2).").arg(code).arg(args.join(QLatin1String(", ")));
    }
}

QByteArray errorName(int code)
{
    static const char *const names[] = {
        "NoError", "Cancelled", "DoesNotExist", "AccessDenied", "IsDirectory", "IsNotDirectory", "AlreadyExists",
        "DiskFull", "WorkerDied", "ProtocolError", "TimedOut", "UnsupportedProtocol", "UnsupportedAction",
        "MalformedUrl", "CannotRead", "CannotWrite", "IdenticalFiles", "CannotDelete", "CannotRename",
        "CannotCreateWorker", "VersionMismatch", "DirectoryNotEmpty", "NameTooLong", "SymlinkLoop",
        "CannotAuthenticate", "HostNotFound", "ConnectionFailed", "Cycle", "SourceChanged", "ReadOnlyFilesystem",
        "UnknownHostKey", "UntrustedCertificate", "NotAnswered", "UnsafeName", "Internal", "FileTooLarge",
        "ServerError"};
    static_assert(sizeof(names) / sizeof(names[0]) == ErrLast + 1, "one name per error code");
    if (code < 0 || code > ErrLast)
        return QByteArray("Error") + QByteArray::number(code);
    return QByteArray(names[code]);
}

} // namespace Qvfs
