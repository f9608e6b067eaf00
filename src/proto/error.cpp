// SPDX-License-Identifier: LGPL-2.1-or-later
#include "error.h"
#include "url.h"

#include <QCoreApplication>

#include <QUrl>
#include <algorithm>
#include <climits>

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
    switch (code) {
    case NoError:
        return QString();
    case ErrCancelled:
        return QCoreApplication::translate("Qvfs", "The operation was cancelled.");
    case ErrDoesNotExist:
        return QCoreApplication::translate("Qvfs", "%1 does not exist.").arg(a0);
    case ErrAccessDenied:
        return QCoreApplication::translate("Qvfs", "Access denied to %1.").arg(a0);
    case ErrIsDirectory:
        return QCoreApplication::translate("Qvfs", "%1 is a folder, but a file was expected.").arg(a0);
    case ErrIsNotDirectory:
        return QCoreApplication::translate("Qvfs", "%1 is a file, but a folder was expected.").arg(a0);
    case ErrAlreadyExists:
        return QCoreApplication::translate("Qvfs", "%1 already exists.").arg(a0);
    case ErrDiskFull:
        return QCoreApplication::translate("Qvfs", "Could not write %1: the disk is full.").arg(a0);
    case ErrWorkerDied:
        return QCoreApplication::translate("Qvfs", "The worker process for %1 died unexpectedly.").arg(a0);
    case ErrProtocolError:
        return QCoreApplication::translate("Qvfs", "The worker process sent malformed data (%1).").arg(a0);
    case ErrTimedOut:
        return QCoreApplication::translate("Qvfs", "The worker process for %1 stopped responding.").arg(a0);
    case ErrUnsupportedProtocol:
        return QCoreApplication::translate("Qvfs", "The protocol %1 is not supported.").arg(a0);
    case ErrUnsupportedAction:
        return QCoreApplication::translate("Qvfs", "This action is not supported for %1.").arg(a0);
    case ErrMalformedUrl:
        return QCoreApplication::translate("Qvfs", "Malformed URL: %1").arg(a0);
    case ErrCannotRead:
        return QCoreApplication::translate("Qvfs", "Could not read %1.").arg(a0);
    case ErrCannotWrite:
        return QCoreApplication::translate("Qvfs", "Could not write %1.").arg(a0);
    case ErrIdenticalFiles:
        return QCoreApplication::translate("Qvfs", "%1 cannot be copied onto itself.").arg(a0);
    case ErrCannotDelete:
        return QCoreApplication::translate("Qvfs", "Could not delete %1.").arg(a0);
    case ErrCannotRename:
        return QCoreApplication::translate("Qvfs", "Could not rename %1.").arg(a0);
    case ErrCannotCreateWorker:
        return QCoreApplication::translate("Qvfs", "Could not start the worker process for %1: %2").arg(a0, a1);
    case ErrVersionMismatch:
        return QCoreApplication::translate(
            "Qvfs", "The worker process speaks protocol version %1, but version %2 is needed.")
            .arg(a0, a1);
    case ErrDirectoryNotEmpty:
        return QCoreApplication::translate("Qvfs", "The folder %1 is not empty.").arg(a0);
    case ErrNameTooLong:
        return QCoreApplication::translate("Qvfs", "The name of %1 is too long.").arg(a0);
    case ErrSymlinkLoop:
        return QCoreApplication::translate("Qvfs", "Too many levels of symbolic links at %1.").arg(a0);
    case ErrCannotAuthenticate:
        return QCoreApplication::translate("Qvfs", "Authentication failed for %1.").arg(a0);
    case ErrHostNotFound:
        return QCoreApplication::translate("Qvfs", "The host %1 was not found.").arg(a0);
    case ErrConnectionFailed:
        return QCoreApplication::translate("Qvfs", "Could not connect to %1: %2").arg(a0, a1);
    case ErrCycle:
        return QCoreApplication::translate("Qvfs", "%1 cannot be copied or moved into itself.").arg(a0);
    case ErrSourceChanged:
        return QCoreApplication::translate("Qvfs", "%1 changed while it was being copied.").arg(a0);
    case ErrReadOnlyFilesystem:
        return QCoreApplication::translate("Qvfs", "Could not write %1: the file system is read-only.").arg(a0);
    case ErrUnknownHostKey:
        return QCoreApplication::translate("Qvfs", "The host key of %1 is not known (fingerprint %2).").arg(a0, a1);
    case ErrUntrustedCertificate:
        return QCoreApplication::translate("Qvfs", "The certificate of %1 is not trusted: %2").arg(a0, a1);
    case ErrNotAnswered:
        return QCoreApplication::translate("Qvfs", "A question about %1 was not answered.").arg(a0);
    case ErrUnsafeName:
        return QCoreApplication::translate("Qvfs", "Refusing the unsafe name %1.").arg(a0);
    case ErrInternal:
        return QCoreApplication::translate("Qvfs", "Unexpected error: %1").arg(a0);
    case ErrFileTooLarge:
        return QCoreApplication::translate("Qvfs", "%1 is too large for the destination.").arg(a0);
    case ErrServerError:
        return QCoreApplication::translate("Qvfs", "The server reported an error for %1: %2").arg(a0, a1);
    case ErrUrlTooLong:
        return QCoreApplication::translate("Qvfs", "The URL is too long: %1").arg(a0);
    case ErrHostKeyChanged:
        return QCoreApplication::translate("Qvfs",
            "The host key of %1 has changed since it was recorded; refusing to connect (%2). "
            "If the change is expected, remove the old key from the known hosts.")
            .arg(a0, a1);
    case ErrLocked:
        return QCoreApplication::translate("Qvfs", "%1 is locked.").arg(a0);
    case ErrPartial: {
        // (The count is computed first: lupdate's parser hangs on a template argument
        // list inside translate()'s arguments.)
        const int count = int(std::min(a0.toLongLong(), qint64(INT_MAX)));
        return QCoreApplication::translate(
            "Qvfs", "%n entries could not be read and were left out, %1 first.", nullptr, count)
            .arg(a1);
    }
    case ErrServerTimedOut:
        return QCoreApplication::translate("Qvfs", "%1 stopped answering.").arg(a0);
    case ErrCannotSeek:
        return QCoreApplication::translate("Qvfs", "%1 can only be read from the start, in order.").arg(a0);
    case ErrNoTrash:
        return QCoreApplication::translate(
            "Qvfs", "%1 cannot be moved to the trash: its volume has no trash that can be used.")
            .arg(a0);
    case ErrClockSkewed:
        return QCoreApplication::translate(
            "Qvfs", "%1 refused the request: the clock of this computer differs too much from the server's.")
            .arg(a0);
    default:
        return QCoreApplication::translate("Qvfs", "Unknown error %1 (%2).")
            .arg(code)
            .arg(args.join(QLatin1String(", ")));
    }
}

QByteArray errorName(int code)
{
    static const char *const names[] = { "NoError", "Cancelled", "DoesNotExist", "AccessDenied", "IsDirectory",
        "IsNotDirectory", "AlreadyExists", "DiskFull", "WorkerDied", "ProtocolError", "TimedOut", "UnsupportedProtocol",
        "UnsupportedAction", "MalformedUrl", "CannotRead", "CannotWrite", "IdenticalFiles", "CannotDelete",
        "CannotRename", "CannotCreateWorker", "VersionMismatch", "DirectoryNotEmpty", "NameTooLong", "SymlinkLoop",
        "CannotAuthenticate", "HostNotFound", "ConnectionFailed", "Cycle", "SourceChanged", "ReadOnlyFilesystem",
        "UnknownHostKey", "UntrustedCertificate", "NotAnswered", "UnsafeName", "Internal", "FileTooLarge",
        "ServerError", "UrlTooLong", "HostKeyChanged", "Locked", "Partial", "ServerTimedOut", "CannotSeek", "NoTrash",
        "ClockSkewed" };
    static_assert(sizeof(names) / sizeof(names[0]) == ErrLast + 1, "one name per error code");
    if (code < 0 || code > ErrLast)
        return QByteArray("Error") + QByteArray::number(code);
    return QByteArray(names[code]);
}

} // namespace Qvfs
