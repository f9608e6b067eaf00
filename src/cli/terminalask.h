// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_CLI_TERMINALASK_H
#define QVFS_CLI_TERMINALASK_H

#include <Qvfs/Job>
#include <Qvfs/Questions>

#include <QByteArray>
#include <QString>
#include <QUrl>

namespace Cli
{

/*!
 * Answers worker questions (copy conflicts, passwords, host keys, certificates): on the
 * terminal (/dev/tty) when standard input is one, with yes or no for every question
 * after --yes / --no, and refusing them otherwise.
 */
class TerminalAsk : public Qvfs::AskDelegate
{
public:
    /*! The delegate for this run (mode from the context). */
    static TerminalAsk *instance();
    void ask(Qvfs::Question *question) override;

    /*!
     * Asks about the existing \a destination the way a worker's conflict question is
     * asked (the client's own copies of pipes and devices ask it themselves): overwrite
     * or skip all after --yes / --no; not answered (Cancel) when nobody can answer.
     */
    Qvfs::ConflictAnswer askConflict(const QUrl &destination);

private:
    enum Mode { Interactive, AlwaysYes, AlwaysNo, Refuse };
    TerminalAsk();
    void askConflict(Qvfs::Question *question);
    Qvfs::ConflictAnswer promptConflict(const QString &destination);
    void askPassword(Qvfs::Question *question);
    void askTrust(Qvfs::Question *question, const QString &text);
    void askUnreadable(Qvfs::Question *question);
    /*! Shows \a prompt on the terminal and reads a line; a null array on end of input. */
    QByteArray readLine(const QString &prompt, bool echo = true);

    Mode m_mode = Refuse;
};

} // namespace Cli

#endif
