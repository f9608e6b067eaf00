// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_FILEJOBCHECK_H
#define QVFS_TESTUTIL_FILEJOBCHECK_H

#include "fixturehelper.h"

#include <QByteArray>
#include <QIODevice>
#include <QList>
#include <QString>
#include <QUrl>

#include <memory>

namespace Qvfs
{
class FileJob;
}

namespace QvfsTest
{

/*! Qvfs::open(\a url, \a mode), owned by the caller (not deleted when it ends). */
std::unique_ptr<Qvfs::FileJob> openJob(const QUrl &url, QIODevice::OpenMode mode);
/*! Waits (up to 30 s) for \a job to be open or to end; true when it was opened. */
bool waitOpen(Qvfs::FileJob *job);
/*!
 * Reads \a length at \a offset and waits (up to 30 s) for the whole answer or the job's
 * end; \a ok (if given) says whether the read was answered whole. Waits in an event loop
 * that ends at the answer, so that a test can time the round trip.
 */
QByteArray readNow(Qvfs::FileJob *job, qint64 offset, qint64 length, bool *ok = nullptr);

/*! What checkRandomReads() found. */
struct RandomReadReport
{
    QString failure; //!< empty when every read matched
    int reads = 0; //!< reads answered
    int pastEnd = 0; //!< reads that started at or past the end
    int empty = 0; //!< reads of length 0
    int acrossChunks = 0; //!< reads longer than one 256 KiB piece
    qint64 bytes = 0; //!< bytes received
    int peakInFlight = 0; //!< the most reads in flight at once
};

/*!
 * Opens \a url read-only with Qvfs::open() and makes \a count reads at random offsets
 * and lengths (seeded by \a seed; past the end, of length 0, and across the 256 KiB piece
 * size among them), up to \a maxInFlight at a time. Each answer is compared byte for
 * byte with what pread() gives for the same range of \a localPath, the same file seen
 * directly; pieces must come in order, add up, and end with an empty piece exactly when
 * the read ends short. Closes the file at the end.
 */
RandomReadReport checkRandomReads(
    const QUrl &url, const QByteArray &localPath, int count, quint32 seed, int maxInFlight = 8);

/*!
 * Where the random-access tests (filejobtest, filedevicetest) run, so that the same rows
 * run for every protocol: chosen by $QVFS_OPEN_BACKEND, "file" (the default) or "sftp".
 *
 * Both serve this machine's files: a test makes its fixtures on the local disk and opens
 * url() of their raw local paths. "sftp" starts a real OpenSSH server on 127.0.0.1 in the
 * helper qvfs-test-sshd (outside this process's children, which the job fixture counts),
 * and points the workers at its ssh_config, agent and a runtime folder of its own (never
 * the real ~/.ssh); the URLs are sftp://root@127.0.0.1:PORT/LOCAL-PATH.
 */
class OpenBackend
{
public:
    enum class Kind { File, Sftp };

    OpenBackend();
    ~OpenBackend();
    OpenBackend(const OpenBackend &) = delete;
    OpenBackend &operator=(const OpenBackend &) = delete;

    Kind kind() const { return m_kind; }
    /*! "file", "sftp": for messages. */
    QByteArray name() const;
    /*! Starts the server, if any (once, from initTestCase()). False with \a why. */
    bool start(QByteArray *why);
    void stop();

    /*! The URL of the local file \a localPath (raw bytes, absolute) through this backend. */
    QUrl url(const QByteArray &localPath) const;
    /*!
     * The processes that hold \a localPath open: for file, this test's workers; for sftp,
     * the server's sftp processes.
     */
    QList<qint64> holders(const QByteArray &localPath) const;
    /*! This test's worker processes of the backend's protocol holding a file open (\a localPath). */
    QList<qint64> workersHolding(const QByteArray &localPath) const;

private:
    Kind m_kind = Kind::File;
    FixtureHelper m_helper;
    int m_port = 0;
    QByteArray m_dir;
};

} // namespace QvfsTest

#endif
