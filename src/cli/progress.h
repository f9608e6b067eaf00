// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_CLI_PROGRESS_H
#define QVFS_CLI_PROGRESS_H

#include <Qvfs/Job>

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <deque>
#include <utility>

namespace Cli
{

/*!
 * A one-line progress display on standard error: bytes, files, speed and ETA. It
 * appears only when standard error is a terminal and the work has run for a while
 * (one second; QVFS_PROGRESS_DELAY_MS overrides it). Several jobs in a row (one per
 * command-line argument) add up on the same line.
 */
class ProgressBar : public QObject
{
    Q_OBJECT
public:
    enum Style {
        Transfer, //!< bytes (of a total), files, speed, ETA
        Count, //!< bytes, files and folders counted so far
    };

    /*!
     * Whether progress may be shown: standard error is a terminal (and, when the
     * command writes data to standard output, that is not the terminal).
     */
    static bool wanted(bool writesStdout);
    /*! The bar on the terminal now, if any (prompts hide it first). */
    static ProgressBar *current();

    explicit ProgressBar(Style style, QObject *parent = nullptr);
    ~ProgressBar() override;

    /*! Follows \a job's amounts until it ends; its amounts then stay counted. */
    void attach(Qvfs::Job *job);
    /*! Sets the bytes processed by the current job, for work the job does not count. */
    void setProcessedBytes(qint64 bytes);
    /*! Sets the total bytes of the current job (-1 unknown). */
    void setTotalBytes(qint64 bytes);
    /*! Ends the display: the final state stays on its line. */
    void finish();
    /*! Clears the line (before a question); the next update draws it again. */
    void hide();

private:
    void onTotal(Qvfs::Job::Unit unit, qint64 amount);
    void onProcessed(Qvfs::Job::Unit unit, qint64 amount);
    void onJobDone(Qvfs::Job *job);
    void update(bool force = false);
    void draw(bool final);
    qint64 speedNow();

    Style m_style;
    QPointer<Qvfs::Job> m_job;
    qint64 m_base[3] = { 0, 0, 0 }; // amounts of finished jobs
    qint64 m_baseTotal[3] = { 0, 0, 0 };
    qint64 m_cur[3] = { 0, 0, 0 };
    qint64 m_curTotal[3] = { -1, -1, -1 };
    qint64 m_jobSpeed = 0;
    QElapsedTimer m_clock;
    qint64 m_lastDraw = -1;
    int m_delay = 1000;
    bool m_shown = false;
    bool m_onScreen = false;
    bool m_finished = false;
    bool m_failed = false;
    QTimer m_timer;
    std::deque<std::pair<qint64, qint64>> m_samples; // (ms, bytes)
};

} // namespace Cli

#endif
