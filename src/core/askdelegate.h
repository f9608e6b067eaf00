// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_ASKDELEGATE_H
#define QVFS_ASKDELEGATE_H

#include "qvfscore_export.h"

namespace Qvfs
{

class Question;

/*!
 * Answers the questions workers and jobs ask: passwords, unknown host keys, untrusted
 * certificates, copy conflicts (see Question). The application implements it — a
 * dialog, a terminal prompt, a policy — and sets it on jobs with Job::setAskDelegate().
 * No widgets in the core.
 * \since 0.1
 */
class QVFSCORE_EXPORT AskDelegate
{
public:
    virtual ~AskDelegate();
    /*!
     * Called when something is asked. Answer now or later with one of the Question's
     * answer functions (or refuse()); the question deletes itself then.
     *
     * The question is the delegate's to answer in the end, always: after the job's ask
     * timeout it is refused for the worker, and after the job ended it answers nobody,
     * but answering or refusing it is still what deletes it.
     */
    virtual void ask(Qvfs::Question *question) = 0;
};

} // namespace Qvfs

#endif
