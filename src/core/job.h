// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_JOB_H
#define QVFS_JOB_H

#include "askdelegate.h"
#include "metadata.h"
#include "question.h"
#include "qvfscore_export.h"

#include <QObject>
#include <QStringList>
#include <QUrl>

#include <memory>

namespace Qvfs
{

class JobPrivate;
class Question;
class AskDelegate;

/*!
 * The base of every Qvfs job: an asynchronous operation that ends by emitting result().
 *
 * Jobs are made by free functions (Qvfs::listDir(), Qvfs::stat(), Qvfs::copy(), ...) and
 * start by themselves when control returns to the event loop. By default a job deletes
 * itself after emitting result() (setAutoDelete(false) to keep it).
 *
 * Kill: kill(Quietly) stops the job at once without emitting result() (the worker is
 * told to stop and is reused or ended); kill(EmitResult) emits result() with
 * ErrCancelled. Either way a put, copy or move leaves nothing partial at a destination:
 * a file appears there only once complete. A FileJob (Qvfs::open()) is the exception: its
 * writes are in place, so a killed FileJob leaves the file as far as it was written.
 * \since 0.1
 */
class QVFSCORE_EXPORT Job : public QObject
{
    Q_OBJECT
public:
    enum KillVerbosity { Quietly, EmitResult };
    Q_ENUM(KillVerbosity)
    enum Unit { Bytes, Files, Directories };
    Q_ENUM(Unit)

    ~Job() override;

    /*! The error code (a Qvfs::Error), NoError while running or on success. */
    int error() const;
    /*! The translated text of the error, naming the URL concerned. */
    QString errorString() const;
    /*! The error's arguments as the worker sent them (URL first, usually). */
    QStringList errorArgs() const;

    /*! Runs the job in a nested event loop and returns true on success. For scripts and tests. */
    bool exec();
    /*! Stops the job. Returns false when it had already finished. */
    bool kill(KillVerbosity verbosity = Quietly);
    /*! Pauses the job: its worker stops sending (backpressure). */
    bool suspend();
    /*! Resumes a suspended job. */
    bool resume();
    bool isSuspended() const;
    /*! Whether the job deletes itself after result() (default true). */
    bool isAutoDelete() const;
    void setAutoDelete(bool autoDelete);

    /*! Sets who answers worker questions; not owned. */
    void setAskDelegate(AskDelegate *delegate);
    AskDelegate *askDelegate() const;
    /*! How long a question may wait for an answer (default 5 minutes). */
    void setAskTimeout(int ms);

    /*! Total amount of \a unit (-1 unknown). */
    qint64 totalAmount(Unit unit) const;
    /*! Processed amount of \a unit. */
    qint64 processedAmount(Unit unit) const;
    /*!
     * Percent done (0..100), from bytes, else files; 100 once the job ended without an
     * error. What a copy skips or leaves out is never processed, and its bytes leave the
     * byte total (CopyAmounts), so the bytes done still reach 100.
     */
    unsigned long percent() const;
    /*! Current speed in bytes per second (averaged over the last seconds). */
    qint64 speed() const;

    /*! How many entries were left out so far (see leftOut()). */
    qint64 leftOutCount() const;
    /*! Metadata the worker sent while the job ran and with its result (protocol-specific). */
    MetaData metaData() const;

Q_SIGNALS:
    /*! Emitted once when the job ends, successfully or not (see kill()). */
    void result(Qvfs::Job *job);
    /*! The total of \a unit became known or changed (a copy counts its sources first). */
    void totalAmountChanged(Qvfs::Job *job, Qvfs::Job::Unit unit, qint64 amount);
    /*! More of \a unit was done; about ten times a second at most. */
    void processedAmountChanged(Qvfs::Job *job, Qvfs::Job::Unit unit, qint64 amount);
    /*! percent() changed. */
    void percentChanged(Qvfs::Job *job, unsigned long percent);
    /*! speed() changed (bytes per second over the last seconds). */
    void speedChanged(Qvfs::Job *job, qint64 bytesPerSecond);
    /*! suspend() took effect. */
    void suspended(Qvfs::Job *job);
    /*! resume() took effect. */
    void resumed(Qvfs::Job *job);
    /*!
     * The job now works on \a url instead (a server redirected it); it is the URL the
     * content really comes from, and what the application should remember.
     */
    void redirection(Qvfs::Job *job, const QUrl &url);
    /*!
     * An entry inside a tree could not be read (\a error, a Qvfs::Error) and was left out;
     * the job goes on and ends with ErrPartial (see leftOutCount()).
     */
    void leftOut(Qvfs::Job *job, const QUrl &url, int error);

protected:
    explicit Job(JobPrivate &dd, QObject *parent = nullptr);
    std::unique_ptr<JobPrivate> d_ptr;

private:
    Q_DECLARE_PRIVATE(Job)
    friend class Question;
};

/*!
 * Ends every idle worker process of this application now (the pool also ends them after
 * their idle timeout, and when the application object is destroyed).
 * \since 0.1
 */
QVFSCORE_EXPORT void shutdownIdleWorkers();

/*!
 * Starts the worker for \a url's protocol ahead of time, so that it starts while the
 * application does its own start-up. A program started by the `qvfs` launcher adopts the
 * worker the launcher started instead; an invalid \a url ends that one unused.
 * \since 0.1
 */
QVFSCORE_EXPORT void prestartWorker(const QUrl &url);

/*!
 * The number of worker processes this application started so far (a tracked figure).
 * \since 0.1
 */
QVFSCORE_EXPORT int workerStartCount();

} // namespace Qvfs

#endif
