// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_PROTOCOL_H
#define QVFS_PROTOCOL_H

#include "qvfscore_export.h"

#include <QSharedDataPointer>
#include <QString>
#include <QStringList>

namespace Qvfs
{

class ProtocolData;

/*!
 * What the installed worker of a protocol declares in its JSON description: the
 * operations it can do, its default port, the other schemes that mean the same, and
 * whether names are raw bytes or UTF-8 text. The core reads nothing about a protocol
 * from anywhere else.
 * \since 0.1
 */
class QVFSCORE_EXPORT Protocol
{
public:
    /*! What a worker can do ("capabilities" in its description). */
    enum Capability : quint32 {
        List = 0x1, //!< "list": list folders (flat and recursive)
        Stat = 0x2, //!< "stat"
        Read = 0x4, //!< "read": get
        Write = 0x8, //!< "write": put
        Delete = 0x10, //!< "delete"
        Mkdir = 0x20, //!< "mkdir"
        Rename = 0x40, //!< "rename": within one host, so a move tries a rename first
        Copy = 0x80, //!< "copy": copies and moves between URLs of one host inside the worker
        Symlink = 0x100, //!< "symlink"
        Chmod = 0x200, //!< "chmod"
        Size = 0x400, //!< "size": directory sizes
        SetTime = 0x800, //!< "settime": modification times
        CopyToFile = 0x1000, //!< "copyToFile": the worker writes local files itself
        CopyFromFile = 0x2000, //!< "copyFromFile": the worker reads local files itself
        Watch = 0x4000, //!< "watch": change notification for folders
        Open = 0x8000, //!< "open": random access
        FreeSpace = 0x10000, //!< "freeSpace": the size and free space of a URL's filesystem (FreeSpaceJob)
        Trash = 0x20000, //!< "trash": moves its entries into the trash, or restores trash entries (TrashJob)
    };
    Q_DECLARE_FLAGS(Capabilities, Capability)

    /*! An invalid protocol. */
    Protocol();
    Protocol(const Protocol &other);
    Protocol &operator=(const Protocol &other);
    ~Protocol();

    /*!
     * The protocol serving \a scheme (case-insensitive; an alias resolves to its
     * protocol), or an invalid one when no installed worker serves it.
     */
    static Protocol find(const QString &scheme);
    /*! The schemes installed workers serve (canonical names, sorted; aliases not listed). */
    static QStringList schemes();

    /*! Whether a worker serves it. */
    bool isValid() const;
    /*! The canonical scheme (an alias resolves to the protocol that declares it). */
    QString scheme() const;
    /*! Other schemes meaning the same. */
    QStringList aliases() const;
    /*! The port URLs of this scheme use when they name none; -1 when it has none. */
    int defaultPort() const;
    Capabilities capabilities() const;
    /*!
     * How many of its workers may serve one host at once ("maxInstancesPerHost", else
     * "maxInstances"): jobs for that host beyond it wait for one to be free. A job that
     * holds its worker while open (a FileJob) keeps one of these.
     * \since 0.1
     */
    int maxWorkersPerHost() const;
    bool hasCapability(Capability capability) const { return capabilities() & capability; }
    /*!
     * Whether names on this protocol are UTF-8 text (some servers) rather than
     * arbitrary bytes (a local filesystem). A copy refuses to give such a
     * protocol a name that is not valid UTF-8 (ErrUnsafeName) rather than mangle it.
     */
    bool namesAreUtf8() const;

private:
    QSharedDataPointer<ProtocolData> d;
};

} // namespace Qvfs

Q_DECLARE_OPERATORS_FOR_FLAGS(Qvfs::Protocol::Capabilities)

#endif
