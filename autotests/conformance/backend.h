// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_CONFORMANCE_BACKEND_H
#define QVFS_CONFORMANCE_BACKEND_H

#include <QByteArray>
#include <QFlags>
#include <QList>
#include <QUrl>

#include <memory>
#include <vector>

namespace QvfsConformance
{

/*! One node of a fixture tree, by its path relative to the scratch area. */
struct Item
{
    enum Kind { File, Dir };
    Kind kind = File;
    QByteArray path;
    QByteArray content; //!< of a file, unless fill is set
    char fill = 0; //!< if set, the file is fillSize bytes of this character (big files are not held)
    qint64 fillSize = 0;

    /*! The size of the file. */
    qint64 size() const { return fill ? fillSize : content.size(); }
};
using Tree = QList<Item>;

/*! A file of \a content at \a path. */
Item file(const QByteArray &path, const QByteArray &content);
/*! A file of \a size bytes \a fill at \a path. */
Item filled(const QByteArray &path, qint64 size, char fill = 'x');
/*! A folder at \a path. */
Item dir(const QByteArray &path);

/*!
 * What the conformance rows run against: one protocol's worker and a place it can work in.
 *
 * A backend is a URL factory for a scratch area (url()), a fixture that starts and stops
 * whatever the protocol needs (start(), stop(): a server on 127.0.0.1 started by the test
 * itself, never the user's), a way to make fixtures in the scratch area out of band
 * (seed(): on disk behind the server, not through the jobs under test) and the set of
 * capabilities it has. A row that needs a capability the backend lacks is skipped, and
 * says which one: it is never counted as passed.
 *
 * To add a protocol, write one file in backends/ that implements this class and registers
 * it with QVFS_CONFORMANCE_BACKEND; CMake finds it and adds a ctest entry
 * "qvfs-conformance-<name>". See backends/filebackend.cpp.
 */
class Backend
{
public:
    enum Capability : quint32 {
        List = 0x1, //!< list folders (flat and recursive)
        Stat = 0x2, //!< stat files and folders
        Read = 0x4, //!< get the content of files
        Write = 0x8, //!< put files into the scratch area (and so copy into it)
        Mkdir = 0x10, //!< make folders (and so copy trees into it)
        Delete = 0x20, //!< delete files and trees (and so move out of it)
        Rename = 0x40, //!< rename within the scratch area
        Seed = 0x80, //!< seed() makes any tree, so every row's fixture can be made
        RawNames = 0x100, //!< names may hold any byte but '/' and NUL
        Watch = 0x200, //!< a change seed() makes reaches a lister watching the folder: its worker watches natively
        /*!
         * Its server has no rename: a move inside it is a copy on the server and a delete
         * (S3), so its worker reports no entry moved by a rename.
         */
        NoServerRename = 0x400,
    };
    Q_DECLARE_FLAGS(Capabilities, Capability)

    /*! The names of \a caps ("list, stat"), for skip messages. */
    static QByteArray names(Capabilities caps);

    virtual ~Backend();

    /*! The short name, as in row tags and QVFS_CONFORMANCE_BACKENDS ("file"). */
    virtual QByteArray name() const = 0;
    /*! The URL scheme its worker serves ("file"). */
    virtual QString scheme() const = 0;
    /*! What this backend can do in general. */
    virtual Capabilities capabilities() const = 0;
    /*!
     * What it can do with the seeded item at \a rel (default: capabilities()). A backend
     * whose fixtures are synthetic can say that a seeded folder can be listed but not
     * stat-ed, for example.
     */
    virtual Capabilities itemCapabilities(QByteArrayView rel) const;

    /*! Starts what it needs, once for all rows (a server ...). False, with \a why, when it cannot. */
    virtual bool start(QByteArray *why);
    /*! Stops what start() started. */
    virtual void stop();

    /*! Makes a fresh, empty scratch area for one row. False, with \a why, on failure. */
    virtual bool beginRow(QByteArray *why) = 0;
    /*! Removes the row's scratch area. */
    virtual void endRow() = 0;

    /*!
     * Makes \a tree in the scratch area, out of band. A backend with the Seed capability
     * makes any tree; one without it may still make the trees it can represent. False,
     * with \a why, when it cannot.
     */
    virtual bool seed(const Tree &tree, QByteArray *why) = 0;

    /*! The URL of \a rel in the scratch area ("" is the scratch area itself). */
    virtual QUrl url(QByteArrayView rel) const = 0;
};

Q_DECLARE_OPERATORS_FOR_FLAGS(Backend::Capabilities)

using BackendFactory = std::unique_ptr<Backend> (*)();

/*! Registers a backend (use QVFS_CONFORMANCE_BACKEND). */
struct BackendRegistration
{
    BackendRegistration(const char *name, BackendFactory factory);
};

/*!
 * The registered backends, in name order; QVFS_CONFORMANCE_BACKENDS="a,b" keeps only
 * those. Names it gives that no backend has go to \a unknown.
 */
std::vector<std::unique_ptr<Backend>> createBackends(QList<QByteArray> *unknown);

} // namespace QvfsConformance

/*! Registers the Backend subclass \a Class under \a name. */
#define QVFS_CONFORMANCE_BACKEND(Class, name)                                                                          \
    static const QvfsConformance::BackendRegistration qvfsConformanceBackend##Class(                                   \
        name, []() -> std::unique_ptr<QvfsConformance::Backend> { return std::make_unique<Class>(); })

#endif
