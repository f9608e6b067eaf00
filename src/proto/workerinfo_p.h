// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_WORKERINFO_P_H
#define QVFS_WORKERINFO_P_H

// What a worker's JSON file declares, and its parser (foreign input: fuzzed). Internal.
//
// A description names the executable beside it, its limits and the protocols it serves,
// each with what the core needs to know about it:
//
//   {
//     "exec": "qvfs-worker-example",          a bare file name next to the JSON file
//     "maxInstances": 5,                      worker processes at most (1..100)
//     "maxInstancesPerHost": 2,               of which busy with one host (0 = no limit)
//     "protocols": {
//       "example": {
//         "capabilities": ["list", "stat", "read", ...],
//         "defaultPort": 4242,                removed from URLs when normalising
//         "aliases": ["ex"],                  other schemes meaning the same
//         "names": "utf8"                     "bytes" (default) or "utf8"
//       }
//     }
//   }
//
// "protocols" may also be a plain list of schemes; "capabilities", "defaultPort" and
// "names" at the top level then apply to each (and are defaults for the object form).

#include "qvfsproto_export.h"

#include <QByteArrayView>
#include <QString>
#include <QStringList>

namespace Qvfs::Internal
{

struct ProtocolInfo
{
    QString name; // the canonical scheme (an alias asked for resolves to it)
    QString executable; // absolute path
    QString workerId; // the executable's file name: workers are shared per executable
    QStringList protocols; // every scheme this executable serves (canonical ones)
    QStringList aliases; // other schemes that mean name
    QStringList capabilities; // as declared (unknown names are kept and ignored)
    int defaultPort = -1;
    bool utf8Names = false; // names on this protocol are UTF-8 text, not arbitrary bytes
    int maxInstances = 5;
    int maxInstancesPerHost = 0; // 0 = maxInstances
    bool isValid() const { return !executable.isEmpty(); }
};

/*!
 * Parses a worker description (at most 64 KiB are read) for \a scheme, which may be one
 * of its protocols or an alias. On success the result has the protocol's canonical name,
 * capabilities, port, aliases and limits (clamped to sane ranges), and \a exec is the
 * executable's bare file name (no '/'). Returns false, with \a error set, when the JSON is
 * malformed, does not serve \a scheme, or names no usable executable.
 */
QVFSPROTO_EXPORT bool parseWorkerInfo(
    QByteArrayView json, const QString &scheme, ProtocolInfo *info, QString *exec, QString *error);

/*! Every scheme \a json serves, aliases included (empty when malformed). */
QVFSPROTO_EXPORT QStringList workerSchemes(QByteArrayView json);

} // namespace Qvfs::Internal

#endif
