// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_WORKERBASE_H
#define QVFS_WORKERBASE_H

#include "error.h"
#include "field.h"
#include "metadata.h"
#include "qvfsworker_export.h"

#include <QByteArray>
#include <QList>
#include <QUrl>

#include <memory>

namespace Qvfs
{

/*!
 * The outcome of a worker hook: pass, or an error code with arguments (usually the URL
 * concerned, fully encoded). The application turns it into translated text.
 * Must be checked: hooks return it, the base class sends it.
 * \since 0.1
 */
class [[nodiscard]] WorkerResult
{
public:
    /*! Success. */
    static WorkerResult pass() { return WorkerResult(); }
    /*! Failure with \a code (a Qvfs::Error) and up to a few arguments. */
    static WorkerResult fail(int code, const QByteArray &arg1 = {}, const QByteArray &arg2 = {})
    {
        WorkerResult r;
        r.m_code = code;
        if (!arg1.isNull())
            r.m_args.append(arg1);
        if (!arg2.isNull())
            r.m_args.append(arg2);
        return r;
    }
    /*! Failure about \a url (sent fully encoded). */
    static WorkerResult fail(int code, const QUrl &url) { return fail(code, url.toEncoded()); }
    bool ok() const noexcept { return m_code == 0; }
    int code() const noexcept { return m_code; }
    const QList<QByteArray> &args() const noexcept { return m_args; }

private:
    int m_code = 0;
    QList<QByteArray> m_args;
};

class WorkerBasePrivate;

/*!
 * The base of every worker process: the dispatch loop, batching of entries, streaming,
 * progress, questions to the application, kill and suspend handling.
 *
 * A worker implements the hooks it supports (the others answer ErrUnsupportedAction).
 * Hooks run one at a time and may block; while one runs, the base class still reads the
 * socket for kill, suspend/resume and answers whenever the hook sends something or
 * calls wasKilled(), never a new command.
 * \since 0.1
 */
class QVFSWORKER_EXPORT WorkerBase
{
public:
    /*! \a protocol is the scheme this worker serves (for messages and logs). */
    explicit WorkerBase(const QByteArray &protocol);
    virtual ~WorkerBase();
    WorkerBase(const WorkerBase &) = delete;
    WorkerBase &operator=(const WorkerBase &) = delete;

    /*!
     * Runs the worker: expects "--fd N" in \a argv (the inherited socket). Returns the
     * process exit code: 0 when the application closed the connection.
     */
    int exec(int argc, char **argv);

protected:
    // ---- hooks ----
    /*! Lists \a url; each entry via beginEntry()/endEntry(). \a recursive: relative paths in Name. */
    virtual WorkerResult listDir(const QUrl &url, Details details, bool recursive);
    /*! Stats \a url: one entry via beginEntry()/endEntry(). */
    virtual WorkerResult stat(const QUrl &url, Details details);
    virtual WorkerResult mkdir(const QUrl &url, int permissions, bool parents);
    /*! Deletes \a url; reports the count removed with setResult("removed", n). */
    virtual WorkerResult del(const QUrl &url, bool recursive);
    virtual WorkerResult rename(const QUrl &from, const QUrl &to, bool overwrite);
    /*! Copies (or moves, options "move") \a sources to \a dest inside this worker. */
    virtual WorkerResult copy(const QList<QUrl> &sources, const QUrl &dest);
    /*! Streams \a url with data(); options: "offset". */
    virtual WorkerResult get(const QUrl &url);
    /*! Writes \a url from readData(); options: "overwrite", "permissions", "mtime". */
    virtual WorkerResult put(const QUrl &url);
    virtual WorkerResult symlink(const QByteArray &target, const QUrl &link);
    virtual WorkerResult chmod(const QUrl &url, int permissions);
    /*! Counts files, folders and bytes under \a url: setResult("files"/"dirs"/"bytes"). */
    virtual WorkerResult directorySize(const QUrl &url);
    virtual WorkerResult special(const QUrl &url);
    /*! Sets the modification time of \a url (seconds and nanoseconds since the epoch). */
    virtual WorkerResult setModificationTime(const QUrl &url, qint64 seconds, qint64 nanoseconds);

    // ---- for hooks ----
    /*! The options of the running request. */
    const MetaData &options() const;
    /*! Starts an entry of a listing or stat; add fields, then endEntry(). */
    void beginEntry();
    void addNumber(Field field, qint64 value);
    void addString(Field field, QByteArrayView value);
    /*! An interned string (user, group, MIME type). */
    void addAtom(Field field, QByteArrayView value);
    /*! Finishes the entry; batches are flushed by size and time. */
    void endEntry();
    /*! Sends a chunk of data (get). Blocks while the application is slow or suspended. */
    void data(QByteArrayView chunk);
    /*!
     * Reads the next chunk of a put. Returns false at the end of the data (or on kill);
     * \a chunk receives the bytes.
     */
    bool readData(QByteArray *chunk);
    /*! Totals for percent: bytes, files, folders (-1 = unknown). */
    void setTotals(qint64 bytes, qint64 files = -1, qint64 dirs = -1);
    /*! Cumulative processed amounts; throttled to about ten messages a second. */
    void setProcessed(qint64 bytes, qint64 files = -1, qint64 dirs = -1);
    /*! Sends metadata (e.g. "mimetype") to the application now. */
    void sendMetaData(const MetaData &meta);
    /*! A result value sent with the final Finished message. */
    void setResult(QByteArrayView key, qint64 value);
    /*!
     * Asks the application (kind: "conflict", "password", "hostkey", "certificate")
     * and waits for the answer, still handling kill. An empty answer means no answer
     * (killed, refused or timed out).
     */
    MetaData ask(const QByteArray &kind, const MetaData &question);
    /*!
     * Whether the running request was killed (or the application went away). Also
     * reads pending control messages and sends a heartbeat when one is due: long hooks
     * call it between chunks.
     */
    bool wasKilled();

    /*! The socket, for test workers that must misbehave on purpose. */
    int socketFd() const;
    /*! The running request's id on the wire (test workers). */
    quint32 requestId() const;

private:
    friend class WorkerBasePrivate;
    std::unique_ptr<WorkerBasePrivate> d;
};

} // namespace Qvfs

#endif
