// SPDX-License-Identifier: LGPL-2.1-or-later
// What ssh says: its standard error read line by line (the last few kept for error
// details, the messages that name a failure recognised), the error a broken connection
// gets, and the askpass relay's questions served while the engine waits.
#include "sftpsession.h"
#include "sftpsession_p.h"

#include "askpassprotocol_p.h"
#include "error.h"
#include "sftp_debug.h"
#include "sshmessages_p.h"

#include <QCoreApplication>

#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace Qvfs::Sftp
{

namespace
{

constexpr int MaxStderrLines = 8;
constexpr qsizetype MaxStderrLine = 4096;

} // namespace

void SessionPrivate::handleStderrLine(QByteArrayView line)
{
    if (line.isEmpty())
        return;
    qCDebug(QVFS_SFTP) << "ssh:" << line;
    stderrLines.append(line.toByteArray());
    if (stderrLines.size() > MaxStderrLines)
        stderrLines.removeFirst();
    const Failure f = SshMessages::classifyStderrLine(line);
    // A changed key outranks everything; otherwise the first failure named is the cause.
    if (f != Failure::None && stderrFailure != Failure::HostKeyChanged
        && (stderrFailure == Failure::None || f == Failure::HostKeyChanged)) {
        stderrFailure = f;
        stderrFailureLine = line.toByteArray();
    }
}

void SessionPrivate::readStderr()
{
    if (process.stderrFd() < 0)
        return;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(process.stderrFd(), buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return; // EAGAIN or an error: nothing more now
        if (n == 0) {
            handleStderrLine(QByteArrayView(stderrPartial).trimmed());
            stderrPartial.clear();
            process.closeStderr();
            return;
        }
        stderrPartial.append(buf, n);
        qsizetype nl;
        while ((nl = stderrPartial.indexOf('\n')) >= 0) {
            handleStderrLine(QByteArrayView(stderrPartial).first(nl).trimmed());
            stderrPartial.remove(0, nl + 1);
        }
        if (stderrPartial.size() > MaxStderrLine) {
            handleStderrLine(QByteArrayView(stderrPartial).trimmed());
            stderrPartial.clear();
        }
    }
}

Result SessionPrivate::connectionError(Failure fallback, const QString &fallbackDetail)
{
    // Collect ssh's last words: stderr to its end, then the exit status.
    const QDeadlineTimer deadline(500);
    while (process.stderrFd() >= 0 && !deadline.hasExpired()) {
        pollfd pfd { process.stderrFd(), POLLIN, 0 };
        if (::poll(&pfd, 1, int(qMax<qint64>(1, deadline.remainingTime()))) <= 0)
            break;
        readStderr();
    }
    process.closeStdin();
    const QDeadlineTimer reapDeadline(300);
    while (!process.reap() && !reapDeadline.hasExpired())
        ::usleep(2000);

    Failure failure = stderrFailure != Failure::None ? stderrFailure : fallback;
    QString detail;
    if (failure == Failure::HostKeyChanged) {
        detail = QCoreApplication::translate("Qvfs",
            "The host key of %1 has changed. This can mean that someone is intercepting the connection, "
            "or that the server was reinstalled. OpenSSH refused to connect; check the key with the "
            "server's administrator and correct the known_hosts file.")
                     .arg(QString::fromUtf8(options.host));
        for (const QByteArray &l : std::as_const(stderrLines)) {
            if (l.startsWith("Offending "))
                detail += QLatin1Char(' ') + QString::fromUtf8(l);
        }
    } else if (!stderrFailureLine.isEmpty() && stderrFailure != Failure::None) {
        detail = QString::fromUtf8(stderrFailureLine);
    } else if (!stderrLines.isEmpty()) {
        detail = QString::fromUtf8(stderrLines.constLast());
    } else {
        detail = fallbackDetail;
    }
    return makeError(SshMessages::errorForFailure(failure), {}, detail, failure);
}

bool SessionPrivate::serveAskpass()
{
    Ssh::AskpassServer::Request request;
    if (!askpass.accept(&request, 2000))
        return false;
    Session::Prompt prompt;
    prompt.host = options.host;
    prompt.user = options.user;
    prompt.port = options.port;
    if (SshMessages::isNotification(request.hint)) {
        qCDebug(QVFS_SFTP) << "ssh notice:" << request.prompt;
        Ssh::AskpassServer::answer(&request, true, {});
        return true;
    }
    if (!SshMessages::classifyPrompt(request.prompt, request.hint, &prompt)) {
        // ssh asks whether to go on with a key that differs from the known one: never.
        qCWarning(QVFS_SFTP) << "refusing a changed host key for" << options.host;
        Ssh::AskpassServer::answer(&request, false, {});
        stderrFailure = Failure::HostKeyChanged;
        stderrFailureLine = request.prompt;
        return true;
    }
    const QString key = QString::number(int(prompt.kind)) + QLatin1Char('\n') + prompt.text;
    prompt.attempt = ++promptAttempts[key];
    Session::AskResult answer;
    if (ask)
        answer = ask(prompt);
    lastActivity.start();
    if (prompt.kind == Session::Prompt::UnknownHostKey) {
        Ssh::AskpassServer::answer(
            &request, true, answer.accepted ? QByteArrayLiteral("yes") : QByteArrayLiteral("no"));
        if (!answer.accepted) {
            hostKeyRefused = true;
            stderrFailureLine = prompt.fingerprint.toUtf8();
        }
        return true;
    }
    Ssh::AskpassServer::answer(&request, answer.accepted, answer.answer);
    if (!answer.accepted)
        cancelledByPrompt = true;
    return true;
}

} // namespace Qvfs::Sftp
