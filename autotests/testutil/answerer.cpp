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

void CredentialsAnswerer::ask(Qvfs::Question *q)
{
    kinds.append(q->kind());
    switch (q->kind()) {
    case Qvfs::Question::Kind::Password: {
        passwords.append(q->password());
        const qsizetype i = passwords.size() - 1;
        if (i < answers.size())
            q->answerPassword(
                answerUser.isEmpty() ? q->password().user : answerUser, QString::fromUtf8(answers.at(i)), true);
        else
            q->refuse();
        return;
    }
    case Qvfs::Question::Kind::HostKey:
    case Qvfs::Question::Kind::Certificate:
        trusts.append(q->trust());
        q->answerTrust(trust);
        return;
    case Qvfs::Question::Kind::Conflict:
    case Qvfs::Question::Kind::Unreadable:
        break;
    }
    q->refuse();
}

} // namespace QvfsTest
