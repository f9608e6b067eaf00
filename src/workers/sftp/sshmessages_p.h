// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SSHMESSAGES_P_H
#define QVFS_SSHMESSAGES_P_H

#include "sftpsession.h"

#include <QByteArrayView>

/*!
 * Recognising what OpenSSH's client says: the lines it writes to stderr when it
 * fails, and the prompts it hands to askpass. The texts are OpenSSH's (sshconnect.c,
 * sshconnect2.c, ssh.c, readpass.c), matched on stable fragments so that small wording
 * changes between versions do not matter. Internal to the sftp engine.
 */
namespace Qvfs::Sftp::SshMessages
{

/*!
 * What one stderr line of ssh means for the connection, or Failure::None. Lines about
 * a changed host key (the "REMOTE HOST IDENTIFICATION HAS CHANGED" banner, "Host key for
 * ... has changed", "POSSIBLE DNS SPOOFING") give HostKeyChanged; they outrank every
 * other failure of the same connection attempt.
 */
Session::Failure classifyStderrLine(QByteArrayView line);

/*! The Qvfs::Error code for a failure. */
int errorForFailure(Session::Failure failure);

/*!
 * Fills kind, keyType, fingerprint, keyFile and echo of \a prompt from ssh's prompt
 * \a text and the SSH_ASKPASS_PROMPT \a hint ("confirm", "none" or empty). Returns
 * false for a question that must not be asked at all: ssh's "continue connecting
 * (yes/no)?" about a host key that differs from the one known for the host's address
 * (a changed key), which is answered "no".
 */
bool classifyPrompt(QByteArrayView text, QByteArrayView hint, Session::Prompt *prompt);

/*! Whether a prompt is only a notification (SSH_ASKPASS_PROMPT=none): no answer is read. */
bool isNotification(QByteArrayView hint);

} // namespace Qvfs::Sftp::SshMessages

#endif
