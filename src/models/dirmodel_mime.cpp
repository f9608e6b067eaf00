// SPDX-License-Identifier: LGPL-2.1-or-later
// DirModel's MIME types: entryMimeType()'s rule — the one the Type column, its sort key and
// content sniffing share — and sniffing (a stat asking for the MIME type) for rows whose
// name says nothing, a few at a time, again when their content changed.
#include "dirmodel_p.h"
#include "qvfsmodels_debug.h"

#include <Qvfs/MimeTypes>
#include <Qvfs/StatJob>
#include <Qvfs/Url>

namespace Qvfs
{

using namespace Internal;

// ---------------------------------------------------------------- MIME types

QString DirModelPrivate::mimeName(const Node *n, const Entry &e) const
{
    if (!mimeTypeForFileType(e.type()).isEmpty() || e.contains(MimeType))
        return mimeTypeOf(e); // the type or the worker says it
    const auto it = n->sniffs.constFind(e.name().toByteArray());
    if (it != n->sniffs.constEnd()) {
        // Looked into (or being looked into): again when the content is another one.
        if (it->done && !it->queued && !it->sameContent(e))
            queueSniff(n, e);
        return entryMimeType(e, it->mime);
    }
    const QMimeType t = mimeTypeForFileName(e.name());
    if (t.isDefault())
        queueSniff(n, e); // the name says nothing: its worker looks inside, later
    return t.name();
}

void DirModelPrivate::queueSniff(const Node *n, const Entry &e) const
{
    Node::Sniff &s = n->sniffs[e.name().toByteArray()];
    if (s.queued)
        return;
    s.queued = true;
    sniffQueue.append({ n->url, e.name().toByteArray() });
    if (!sniffTimer.isActive())
        sniffTimer.start(0);
}

void DirModelPrivate::runSniffs()
{
    while (sniffRunning < MaxSniffJobs && !sniffQueue.isEmpty()) {
        const auto [url, name] = sniffQueue.takeFirst();
        if (!nodes.contains(url))
            continue; // (its sniffs went with its node)
        StatJob *job = Qvfs::stat(Url::child(url, name), DetailBasic | DetailTime | DetailMimeType);
        ++sniffRunning;
        QObject::connect(job, &Job::result, q, [this, job, url = url, name = name] {
            --sniffRunning;
            sniffed(url, name, job->error() ? Entry() : job->statResult());
            runSniffs();
        });
    }
}

void DirModelPrivate::sniffed(const QUrl &url, const QByteArray &name, const Entry &result)
{
    Node *n = nodes.value(url);
    if (!n)
        return;
    const auto it = n->sniffs.find(name);
    if (it == n->sniffs.end())
        return;
    // The row, found under its present key (the sniffed type is part of it when sorting by type).
    const Entry now = lister->find(n->url, name);
    const int r = now.isEmpty() ? -1 : findRow(n, now);
    const QString before = it->mime;
    it->queued = false;
    it->done = true;
    // What it said holds for this content (for none, when the stat failed: not asked
    // again until the row changes).
    const Entry &basis = result.isEmpty() ? now : result;
    if (!result.isEmpty())
        it->mime = result.string(MimeType);
    it->size = basis.size();
    it->mtime = basis.number(MTime, 0);
    it->mtimeNs = basis.number(MTimeNs, 0);
    if (r < 0 || it->mime == before)
        return;
    if (n->spec.column != DirModel::TypeColumn) {
        Q_EMIT q->dataChanged(q->index(r, 0, indexOfNode(n)), q->index(r, DirModel::ColumnCount - 1, indexOfNode(n)));
    } else if (n->sorting) {
        ++n->generation; // the pool's order is of the keys before: sorted again
        Q_EMIT q->dataChanged(q->index(r, 0, indexOfNode(n)), q->index(r, DirModel::ColumnCount - 1, indexOfNode(n)));
    } else {
        moveRow(n, r); // its sort key changed with what the column shows
    }
}

} // namespace Qvfs
