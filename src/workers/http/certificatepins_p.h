// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_CERTIFICATEPINS_P_H
#define QVFS_CERTIFICATEPINS_P_H

#include <QByteArray>
#include <QList>
#include <QSslError>
#include <QString>

namespace Qvfs::Http
{

class HttpClient;

/*!
 * The certificates a user trusted "always" (TrustQuestion answered Trust::Always), kept
 * for later workers in one file: $XDG_DATA_HOME/qvfs/trusted-certificates (by default
 * ~/.local/share/qvfs/trusted-certificates), mode 0600.
 *
 * One line per decision: "pin HOST PORT SHA256 ERRORS", where SHA256 is the hex digest
 * of the server's own certificate and ERRORS the QSslError codes accepted for it,
 * comma-separated. A pin trusts exactly that certificate on that host and port despite
 * those errors; another certificate, or another error with the same one, is asked
 * about again. Lines starting with '#' and malformed lines are ignored; a user revokes a
 * decision by deleting its line.
 */
class CertificatePins
{
public:
    /*! The file's path (it may not exist). */
    static QString filePath();
    /*! Pins every decision of the file on \a client. */
    static void load(HttpClient *client);
    /*! Appends a decision to the file (made with its folder when missing); false if it cannot be written. */
    static bool store(const QString &host, int port, const QByteArray &sha256Hex, const QList<QSslError> &errors);
};

} // namespace Qvfs::Http

#endif
