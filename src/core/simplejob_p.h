// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SIMPLEJOB_P_H
#define QVFS_SIMPLEJOB_P_H

#include "changenotifier_p.h"
#include "entry.h"
#include "entrycodec_p.h"
#include "job_p.h"
#include "simplejob.h"

namespace Qvfs
{

class SimpleJobPrivate : public JobPrivate
{
public:
    Q_DECLARE_PUBLIC(SimpleJob)
    Entry resultEntry; // what the worker made, when a lister wanted it

    void start() override
    {
        Internal::requestResultEntry(request.command());
        JobPrivate::start();
    }
    void requestEntries(Internal::EntryBatch *batch) override
    {
        if (!batch->offsets.isEmpty())
            resultEntry = Entry(batch, 0);
    }
    void onFinished(const MetaData &results) override
    {
        // Listers of the folder follow without listing it (ChangeNotifier).
        Internal::publishResult(request.command(), resultEntry);
        JobPrivate::onFinished(results);
    }
    /*! A SimpleJob that sends \a request. */
    template<typename R>
    static SimpleJob *create(const R &request)
    {
        auto *d = new SimpleJobPrivate;
        d->request.set(request);
        return new SimpleJob(*d);
    }
    /*! A SimpleJob that sends \a command as it is. */
    static SimpleJob *createCommand(Internal::WireCommand command)
    {
        auto *d = new SimpleJobPrivate;
        d->request.setCommand(std::move(command));
        return new SimpleJob(*d);
    }
};

} // namespace Qvfs

#endif
