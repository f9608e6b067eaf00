// SPDX-License-Identifier: LGPL-2.1-or-later
#include "progress.h"
#include "cli.h"
#include "format.h"

#include <QCoreApplication>

#include <unistd.h>

namespace Cli
{

static ProgressBar *s_current = nullptr;

bool ProgressBar::wanted(bool writesStdout)
{
    if (!ctx().stderrTty)
        return false;
    if (writesStdout && ctx().stdoutTty)
        return false; // the data and the bar would share the screen
    return true;
}

ProgressBar *ProgressBar::current()
{
    return s_current;
}

ProgressBar::ProgressBar(Style style, QObject *parent)
    : QObject(parent)
    , m_style(style)
{
    bool ok = false;
    const int delay = qEnvironmentVariableIntValue("QVFS_PROGRESS_DELAY_MS", &ok);
    if (ok && delay >= 0)
        m_delay = delay;
    m_clock.start();
    s_current = this;
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, [this] {
        m_shown = true;
        update(true);
        // Keep speed and ETA moving while the amounts do not change.
        m_timer.setSingleShot(false);
        m_timer.start(250);
    });
    m_timer.start(m_delay);
}

ProgressBar::~ProgressBar()
{
    finish();
}

void ProgressBar::attach(Qvfs::Job *job)
{
    if (m_job)
        onJobDone(m_job);
    m_job = job;
    for (int u = 0; u < 3; ++u) {
        m_cur[u] = 0;
        m_curTotal[u] = -1;
    }
    m_jobSpeed = 0;
    connect(job, &Qvfs::Job::totalAmountChanged, this, [this](Qvfs::Job *j, Qvfs::Job::Unit unit, qint64 amount) {
        if (j == m_job)
            onTotal(unit, amount);
    });
    connect(job, &Qvfs::Job::processedAmountChanged, this, [this](Qvfs::Job *j, Qvfs::Job::Unit unit, qint64 amount) {
        if (j == m_job)
            onProcessed(unit, amount);
    });
    connect(job, &Qvfs::Job::speedChanged, this, [this](Qvfs::Job *j, qint64 speed) {
        if (j == m_job)
            m_jobSpeed = speed;
    });
    connect(job, &Qvfs::Job::result, this, [this](Qvfs::Job *j) {
        if (j == m_job)
            onJobDone(j);
    });
}

void ProgressBar::onJobDone(Qvfs::Job *job)
{
    const bool ok = job->error() == 0;
    if (!ok)
        m_failed = true;
    for (int u = 0; u < 3; ++u) {
        const qint64 done = ok && m_curTotal[u] >= 0 ? qMax(m_curTotal[u], m_cur[u]) : m_cur[u];
        m_base[u] += done;
        m_baseTotal[u] += done;
        m_cur[u] = 0;
        m_curTotal[u] = -1;
    }
    m_job = nullptr;
    m_jobSpeed = 0;
    update();
}

void ProgressBar::onTotal(Qvfs::Job::Unit unit, qint64 amount)
{
    if (unit < 0 || unit > 2)
        return;
    m_curTotal[unit] = amount;
    update();
}

void ProgressBar::onProcessed(Qvfs::Job::Unit unit, qint64 amount)
{
    if (unit < 0 || unit > 2)
        return;
    m_cur[unit] = amount;
    update();
}

void ProgressBar::setProcessedBytes(qint64 bytes)
{
    m_cur[Qvfs::Job::Bytes] = bytes;
    update();
}

void ProgressBar::setTotalBytes(qint64 bytes)
{
    m_curTotal[Qvfs::Job::Bytes] = bytes;
    update();
}

void ProgressBar::hide()
{
    if (!m_onScreen)
        return;
    writeStderr("\r\x1b[K");
    m_onScreen = false;
    setProgressLineVisible(false);
}

qint64 ProgressBar::speedNow()
{
    const qint64 now = m_clock.elapsed();
    const qint64 bytes = m_base[0] + m_cur[0];
    if (m_samples.empty() || m_samples.back().second != bytes || now - m_samples.back().first > 500)
        m_samples.emplace_back(now, bytes);
    while (m_samples.size() > 2 && now - m_samples.front().first > 3000)
        m_samples.pop_front();
    if (m_jobSpeed > 0)
        return m_jobSpeed;
    const auto &first = m_samples.front();
    if (now - first.first < 200)
        return now > 0 ? bytes * 1000 / now : 0;
    return (bytes - first.second) * 1000 / (now - first.first);
}

void ProgressBar::update(bool force)
{
    if (m_finished)
        return;
    const qint64 now = m_clock.elapsed();
    if (!m_shown)
        return;
    if (!force && m_lastDraw >= 0 && now - m_lastDraw < 100)
        return;
    m_lastDraw = now;
    draw(false);
}

void ProgressBar::draw(bool final)
{
    using Qvfs::Job;
    const qint64 bytes = m_base[Job::Bytes] + m_cur[Job::Bytes];
    const qint64 files = m_base[Job::Files] + m_cur[Job::Files];
    const qint64 dirs = m_base[Job::Directories] + m_cur[Job::Directories];
    auto total = [this](int u) -> qint64 {
        if (m_job && m_curTotal[u] < 0)
            return -1;
        const qint64 t = m_baseTotal[u] + qMax<qint64>(m_curTotal[u], 0);
        return t > 0 ? t : -1;
    };
    const qint64 totalBytes = total(Job::Bytes);
    const qint64 totalFiles = total(Job::Files);
    const qint64 elapsed = m_clock.elapsed();
    const qint64 speed = final ? (elapsed > 0 ? bytes * 1000 / elapsed : 0) : speedNow();

    QStringList parts;
    int percent = -1;
    if (m_style == Transfer) {
        if (totalBytes > 0)
            percent = int(qBound<qint64>(0, bytes * 100 / totalBytes, qint64(100)));
        else if (totalFiles > 0)
            percent = int(qBound<qint64>(0, files * 100 / totalFiles, qint64(100)));
        if (final && !m_failed && percent >= 0)
            percent = 100;
        if (totalBytes > 0)
            parts << QCoreApplication::translate("qvfs", "%1 of %2").arg(formatSize(bytes), formatSize(totalBytes));
        else
            parts << formatSize(bytes);
        if (totalFiles > 1)
            parts << QCoreApplication::translate("qvfs", "%1/%2 files").arg(files).arg(totalFiles);
        else if (totalFiles < 0 && files > 0)
            parts << QCoreApplication::translate("qvfs", "%1 files").arg(files);
        parts << QCoreApplication::translate("qvfs", "%1/s").arg(formatSize(speed));
        if (!final && totalBytes > 0 && speed > 0 && bytes < totalBytes)
            parts << QCoreApplication::translate("qvfs", "ETA %1")
                         .arg(formatDuration((totalBytes - bytes + speed - 1) / speed));
        else if (final)
            parts << formatDuration(elapsed / 1000);
    } else {
        parts << formatSize(bytes);
        parts << QCoreApplication::translate("qvfs", "%1 files").arg(files);
        parts << QCoreApplication::translate("qvfs", "%1 folders").arg(dirs);
    }
    const int width = terminalWidth(STDERR_FILENO);
    QString text;
    if (percent >= 0) {
        text = QStringLiteral("%1% ").arg(percent, 3);
        const int barWidth = qBound(0, width / 4, 30);
        if (barWidth >= 10) {
            const int filled = barWidth * percent / 100;
            text += QLatin1Char('[') + QString(filled, QLatin1Char('='))
                + (filled < barWidth ? QStringLiteral(">") : QString())
                + QString(qMax(0, barWidth - filled - 1), QLatin1Char(' ')) + QStringLiteral("] ");
        }
    }
    text += parts.join(QStringLiteral("  "));
    if (text.size() > width - 1)
        text.truncate(qMax(0, width - 1));
    writeStderr(QByteArray("\r" + text.toLocal8Bit() + "\x1b[K"));
    m_onScreen = true;
    setProgressLineVisible(true);
}

void ProgressBar::finish()
{
    if (m_finished)
        return;
    if (m_job)
        onJobDone(m_job);
    m_timer.stop();
    if (!m_shown && m_clock.elapsed() >= m_delay)
        m_shown = true;
    if (m_style == Count) {
        // The counts are the command's output: the line only kept the user company.
        hide();
    } else if (m_shown) {
        draw(true);
        writeStderr("\n");
        setProgressLineVisible(false);
    }
    m_onScreen = false;
    m_finished = true;
    if (s_current == this)
        s_current = nullptr;
}

} // namespace Cli
