// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_FILEOPCONTEXT_P_H
#define QVFS_FILEOPCONTEXT_P_H

// The file worker's side of a long fileops.h operation (FileOps::Context): kill,
// throttled progress, questions and per-entry reports through the worker. Shared with
// the trash worker, a FileWorker too. Internal.

#include "fileworker.h"
#include "url.h"

#include <QElapsedTimer>

namespace Qvfs
{

/*! The FileOps::Context of one request of a FileWorker. */
class OpContext : public FileOps::Context
{
public:
    /*! \a reportItems: the request asked for per-entry reports (CopyRequest::reportItems). */
    explicit OpContext(FileWorker *w, bool reportItems = false)
        : m_w(w)
        , m_reportItems(reportItems)
    { }
    bool isCancelled() override { return m_w->wasKilled(); }
    void setTotals(qint64 bytes, qint64 files, qint64 dirs) override
    {
        // The first totals go out at once; lowered ones (skipped entries, maybe thousands)
        // with the next progress at most ten times a second, and at the end (finish()).
        m_totals[0] = bytes;
        m_totals[1] = files;
        m_totals[2] = dirs;
        m_totalsPending = true;
        if (!m_timer.isValid() || m_timer.elapsed() >= 100)
            sendTotals();
    }
    void progress(qint64 bytes, qint64 files, qint64 dirs) override
    {
        if (m_totalsPending && m_timer.elapsed() >= 100)
            sendTotals();
        m_w->setProcessed(bytes, files, dirs);
    }
    void skipped(qint64 count) override { m_w->setSkipped(count); }
    void item(CopyItemEvent event, const QByteArray &source, const QByteArray &destination) override
    {
        if (m_reportItems)
            m_w->reportItem(event, Url::fromLocalPath(source), Url::fromLocalPath(destination));
    }
    /*! Sends what is still pending; before the request ends. */
    void finish()
    {
        if (m_totalsPending)
            sendTotals();
    }
    ConflictAction askConflict(const QByteArray &src, const QByteArray &dst, bool *applyToAll) override
    {
        const ConflictAnswer a
            = m_w->askConflict(ConflictQuestion { Url::fromLocalPath(src), Url::fromLocalPath(dst) });
        *applyToAll = a.applyToAll;
        m_unanswered = !a.answered;
        return a.answered ? a.action : ConflictAction::Cancel;
    }
    UnreadableAction unreadable(const QByteArray &path, int error) override
    {
        const QUrl url = Url::fromLocalPath(path);
        UnreadableAction action = UnreadableAction::Skip;
        if (!m_skipUnreadable) {
            const UnreadableAnswer a = m_w->askUnreadable(UnreadableQuestion { url, error });
            action = a.action;
            m_skipUnreadable = a.applyToAll && a.action == UnreadableAction::Skip;
        }
        if (action == UnreadableAction::Skip)
            m_w->leftOut(url, error); // the job ends with ErrPartial
        return action;
    }
    bool unanswered() const { return m_unanswered; }

private:
    void sendTotals()
    {
        m_w->setTotals(m_totals[0], m_totals[1], m_totals[2]);
        m_totalsPending = false;
        m_timer.start();
    }

    FileWorker *m_w;
    const bool m_reportItems;
    bool m_unanswered = false;
    bool m_skipUnreadable = false; // "skip all" was answered
    bool m_totalsPending = false;
    qint64 m_totals[3] = { -1, -1, -1 };
    QElapsedTimer m_timer;
};

} // namespace Qvfs

#endif
