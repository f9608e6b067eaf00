// SPDX-License-Identifier: LGPL-2.1-or-later
#include "sshmessages_p.h"

#include "error.h"

#include <QRegularExpression>
#include <QString>

namespace Qvfs::Sftp::SshMessages
{

using Failure = Session::Failure;

namespace
{

bool has(QByteArrayView line, const char *fragment)
{
    return line.contains(QByteArrayView(fragment));
}

} // namespace

Failure classifyStderrLine(QByteArrayView line)
{
    if (has(line, "REMOTE HOST IDENTIFICATION HAS CHANGED") || (has(line, "Host key for") && has(line, "has changed"))
        || has(line, "POSSIBLE DNS SPOOFING") || has(line, "Offending ")
        || has(line, "differs from the key for the IP"))
        return Failure::HostKeyChanged;
    if (has(line, "Host key verification failed") || (has(line, "host key is known for") && has(line, "strict")))
        return Failure::HostKeyUnknown;
    if (has(line, "Could not resolve hostname") || has(line, "Could not resolve host"))
        return Failure::HostNotFound;
    if (has(line, "Connection refused"))
        return Failure::ConnectionRefused;
    if (has(line, "timed out") || has(line, "Timeout, server") || has(line, "Connection timed out"))
        return Failure::TimedOut;
    if (has(line, "Permission denied (") || has(line, "Too many authentication failures")
        || has(line, "No more authentication methods"))
        return Failure::AuthenticationFailed;
    if (has(line, "subsystem request failed"))
        return Failure::NoSftpServer;
    if (has(line, "No route to host") || has(line, "Network is unreachable") || has(line, "Connection reset")
        || has(line, "Connection closed") || has(line, "Broken pipe") || has(line, "kex_exchange_identification")
        || has(line, "Unable to negotiate"))
        return Failure::ConnectionLost;
    return Failure::None;
}

int errorForFailure(Failure failure)
{
    switch (failure) {
    case Failure::None:
        return NoError;
    case Failure::HostKeyChanged:
        return ErrHostKeyChanged;
    case Failure::HostKeyUnknown:
        return ErrUnknownHostKey;
    case Failure::AuthenticationFailed:
        return ErrCannotAuthenticate;
    case Failure::HostNotFound:
        return ErrHostNotFound;
    case Failure::TimedOut:
        return ErrTimedOut;
    case Failure::ProtocolError:
        return ErrProtocolError;
    case Failure::ConnectionRefused:
    case Failure::ConnectionLost:
    case Failure::NoSftpServer:
    case Failure::SshFailed:
        return ErrConnectionFailed;
    }
    return ErrConnectionFailed;
}

bool isNotification(QByteArrayView hint)
{
    return hint == "none";
}

bool classifyPrompt(QByteArrayView text, QByteArrayView hint, Session::Prompt *prompt)
{
    using Prompt = Session::Prompt;
    prompt->text = QString::fromUtf8(text);
    prompt->kind = Prompt::Other;
    prompt->echo = false;
    if (has(text, "continue connecting")) {
        if (!has(text, "authenticity of host"))
            return false; // a key that differs from the one known for the address
        prompt->kind = Prompt::UnknownHostKey;
        prompt->echo = true;
        static const QRegularExpression fp(
            QStringLiteral("(\\S+) key fingerprint is:? (\\S+?)\\.?$"), QRegularExpression::MultilineOption);
        const QRegularExpressionMatch m = fp.match(prompt->text);
        if (m.hasMatch()) {
            prompt->keyType = m.captured(1);
            prompt->fingerprint = m.captured(2);
        }
        return true;
    }
    if (has(text, "Enter passphrase for")) {
        prompt->kind = Prompt::Passphrase;
        static const QRegularExpression file(QStringLiteral("key '(.*)'"));
        const QRegularExpressionMatch m = file.match(prompt->text);
        if (m.hasMatch())
            prompt->keyFile = m.captured(1);
        return true;
    }
    // "user@host's password: " (password method) or "(user@host) Password: " (the
    // keyboard-interactive prompt of PAM and of sshd's own password check). Not the
    // old/new password dialogue of an expired password.
    const QByteArrayView trimmed = text.trimmed();
    if ((trimmed.endsWith("'s password:") || trimmed.endsWith(") Password:") || trimmed == "Password:")
        && !has(text, "old password") && !has(text, "new password")) {
        prompt->kind = Prompt::Password;
        return true;
    }
    prompt->echo = hint == "confirm";
    return true;
}

} // namespace Qvfs::Sftp::SshMessages
