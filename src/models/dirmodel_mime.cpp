// SPDX-License-Identifier: LGPL-2.1-or-later
// DirModel's MIME types: mimeTypeOf()'s rule, and content sniffing (a stat asking for
// the MIME type) for rows whose name says nothing, a few at a time.
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
    // mimeTypeOf()'s rule, with what content sniffing found before the name's guess.
    const QString byType = mimeTypeForFileType(e.type());
    if (!byType.isEmpty())
        return byType;
    if (e.contains(MimeType))
        return e.string(MimeType);
    const QString sniffed = n->sniffed.value(e.name().toByteArray());
    if (!sniffed.isEmpty())
        return sniffed;
    const QMimeType t = mimeTypeForFileName(e.name());
    if (t.isDefault())
        queueSniff(n, e); // the name says nothing: its worker looks inside, later
    return t.name();
}

void DirModelPrivate::queueSniff(const Node *n, const Entry &e) const
{
    const QByteArray key = n->url.toEncoded() + '\0' + e.name().toByteArray();
    if (sniffKnown.contains(key))
        return;
    sniffKnown.insert(key);
    sniffQueue.append({ n->url, e.name().toByteArray() });
    if (!sniffTimer.isActive())
        sniffTimer.start(0);
}

void DirModelPrivate::runSniffs()
{
    while (sniffRunning < MaxSniffJobs && !sniffQueue.isEmpty()) {
        const auto [url, name] = sniffQueue.takeFirst();
        if (!nodes.contains(url))
            continue;
        StatJob *job = Qvfs::stat(Url::child(url, name), DetailBasic | DetailMimeType);
        ++sniffRunning;
        QObject::connect(job, &Job::result, q, [this, job, url = url, name = name] {
            --sniffRunning;
            Node *n = nodes.value(url);
            if (n && !job->error()) {
                const QString mime = job->statResult().string(MimeType);
                if (!mime.isEmpty()) {
                    n->sniffed.insert(name, mime);
                    for (int r = 0; r < n->rows.size(); ++r) {
                        if (n->rows.at(r).name() == QByteArrayView(name)) {
                            const QModelIndex i = q->index(r, DirModel::TypeColumn, indexOfNode(n));
                            Q_EMIT q->dataChanged(i.siblingAtColumn(0), i);
                            break;
                        }
                    }
                }
            }
            runSniffs();
        });
    }
}

} // namespace Qvfs
