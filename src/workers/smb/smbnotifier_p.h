// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SMBNOTIFIER_P_H
#define QVFS_SMBNOTIFIER_P_H

#include "smbcontext_p.h"

#include <QByteArray>
#include <QByteArrayView>

/*!
 * The smb worker's change notifier: the worker's own executable started again with
 * Notifier::Argument, one process per watched folder, as KIO's smb notifier. It holds a
 * connection of its own with one SMB2 CHANGE_NOTIFY request outstanding
 * (smbc_notify()), which blocks in libsmbclient until the server answers: the worker
 * stays free for its other watches and commands, and waits on the notifiers' output.
 *
 * Its standard input carries what it needs, never its command line: lines of "KEY
 * VALUE" (values percent-encoded) ending with "end": "url" (the folder, as libsmbclient
 * takes it), "port", "domain", "user", "password", "guest" (1 for an anonymous login).
 * Then standard input stays open; the notifier ends within NotifyTickMs once it closes.
 *
 * Its standard output is one line per message, names percent-encoded:
 *   ready                the request is outstanding: a change from now on is reported
 *   error ERRNO          it could not watch (the folder, the login, the server); it ends
 *   add NAME | remove NAME | modify NAME
 *   from NAME, to NAME   a rename within the folder, as two lines in this order
 *   lost                 events were lost (the server's buffer overflowed): list anew
 *   gone                 the folder can no longer be opened (deleted); it ends
 * Internal to the smb worker.
 */
namespace Qvfs::Smb::Notifier
{

/*! The command-line argument that makes the worker's executable a notifier. */
inline constexpr char Argument[] = "--smb-notifier";

/*! How often the outstanding request gives the notifier a chance to look at its input. */
inline constexpr int NotifyTickMs = 100;

/*! What is written to a notifier's standard input: the folder and the login. */
QByteArray startMessage(const QByteArray &libraryUrl, int port, const Login &login);

/*! The notifier's main(): reads startMessage() from standard input, then watches. */
int run();

} // namespace Qvfs::Smb::Notifier

#endif
