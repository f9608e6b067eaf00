// SPDX-License-Identifier: LGPL-2.1-or-later
#include "answerer.h"

namespace QvfsTest
{

Answerer::~Answerer()
{
    for (Qvfs::Question *q : std::as_const(held))
        q->refuse();
}

void Answerer::ask(Qvfs::Question *q)
{
    ++asked;
    if (q->kind() == Qvfs::Question::Kind::Conflict)
        questions.append(q->conflict());
    if (never) {
        held.append(q);
        return;
    }
    if (action.isEmpty()) {
        q->refuse();
        return;
    }
    q->answerConflict(Qvfs::conflictActionFromName(action), applyToAll);
}

} // namespace QvfsTest
