// SPDX-License-Identifier: LGPL-2.1-or-later
#include "terminalask.h"
#include "cli.h"
#include "progress.h"

#include <Qvfs/Error>
#include <Qvfs/Url>

#include <QCoreApplication>
#include <QUrl>

#include <cerrno>
#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

namespace Cli
{

namespace
{
// Everything a question shows comes from a worker (or a server behind it) and goes to
// the terminal: names quoted as ls does, free text only when it holds control characters.
QString nameItem(const QString &name)
{
    return nameArg(name.toUtf8(), Sink::Terminal, NameStyle::Plain);
}

QString textItem(const QString &text)
{
    return nameArg(text.toUtf8(), Sink::Terminal, NameStyle::Text);
}
} // namespace

TerminalAsk *TerminalAsk::instance()
{
    static TerminalAsk delegate;
    return &delegate;
}

TerminalAsk::TerminalAsk()
{
    switch (ctx().answers) {
    case Answers::Yes:
        m_mode = AlwaysYes;
        break;
    case Answers::No:
        m_mode = AlwaysNo;
        break;
    case Answers::Terminal:
        m_mode = ctx().stdinTty ? Interactive : Refuse;
        break;
    }
}

void TerminalAsk::ask(Qvfs::Question *question)
{
    switch (question->kind()) {
    case Qvfs::Question::Kind::Conflict:
        askConflict(question);
        return;
    case Qvfs::Question::Kind::Password:
        askPassword(question);
        return;
    case Qvfs::Question::Kind::HostKey: {
        const Qvfs::TrustQuestion q = question->trust();
        askTrust(question,
            QCoreApplication::translate("qvfs",
                "The host key of %1 is not known.\nIts fingerprint is %2.\n"
                "Connect anyway? [y]es once, [a]lways (remember the key), [N]o: ")
                .arg(nameItem(q.host), textItem(q.fingerprint)));
        return;
    }
    case Qvfs::Question::Kind::Certificate: {
        const Qvfs::TrustQuestion q = question->trust();
        askTrust(question,
            QCoreApplication::translate("qvfs",
                "The certificate of %1 is not trusted: %2\nIts fingerprint is %3.\n"
                "Connect anyway? [y]es once, [a]lways (trust this certificate), [N]o: ")
                .arg(nameItem(q.host), textItem(q.detail), textItem(q.fingerprint)));
        return;
    }
    case Qvfs::Question::Kind::Unreadable:
        askUnreadable(question);
        return;
    }
    question->refuse();
}

void TerminalAsk::askUnreadable(Qvfs::Question *question)
{
    using Qvfs::UnreadableAction;
    // Without a terminal (or with --yes/--no) the entry is skipped and reported, as cp -r does.
    if (m_mode != Interactive) {
        question->answerUnreadable(UnreadableAction::Skip, true);
        return;
    }
    const Qvfs::UnreadableQuestion q = question->unreadable();
    const QString prompt
        = QCoreApplication::translate("qvfs", "Cannot read %1: %2\n[s]kip, skip [a]ll, [r]etry, [c]ancel: ")
              .arg(urlArg(q.url, Sink::Terminal),
                  textItem(Qvfs::errorText(q.error, { Qvfs::Url::displayString(q.url) })));
    for (;;) {
        const QByteArray line = readLine(prompt).trimmed();
        const char c = line.isEmpty() ? 0 : char(line.at(0) | 0x20);
        if (line.isNull() || c == 'c') {
            question->answerUnreadable(UnreadableAction::Cancel);
            return;
        }
        if (c == 's' || c == 'a' || c == 'r') {
            question->answerUnreadable(c == 'r' ? UnreadableAction::Retry : UnreadableAction::Skip, c == 'a');
            return;
        }
    }
}

void TerminalAsk::askConflict(Qvfs::Question *question)
{
    if (m_mode == Refuse) {
        question->refuse();
        return;
    }
    const Qvfs::ConflictAnswer answer = m_mode == Interactive
        ? promptConflict(urlArg(question->conflict().destination, Sink::Terminal))
        : askConflict(question->conflict().destination);
    question->answerConflict(answer.action, answer.applyToAll);
}

Qvfs::ConflictAnswer TerminalAsk::askConflict(const QUrl &destination)
{
    using Qvfs::ConflictAction;
    switch (m_mode) {
    case AlwaysYes:
        return { ConflictAction::Overwrite, true, true };
    case AlwaysNo:
        return { ConflictAction::Skip, true, true };
    case Refuse:
        return { ConflictAction::Cancel, false, false };
    case Interactive:
        break;
    }
    return promptConflict(urlArg(destination, Sink::Terminal));
}

Qvfs::ConflictAnswer TerminalAsk::promptConflict(const QString &destination)
{
    using Qvfs::ConflictAction;
    const QString prompt = QCoreApplication::translate(
        "qvfs", "%1 already exists. Overwrite it?\n[y]es, [n]o, [a]ll, [s]kip all, [r]ename, [c]ancel: ")
                               .arg(destination);
    for (;;) {
        const QByteArray line = readLine(prompt).trimmed();
        const char c = line.isEmpty() ? 0 : char(line.at(0) | 0x20);
        if (line.isNull())
            return { ConflictAction::Cancel, false, false };
        switch (c) {
        case 'y':
            return { ConflictAction::Overwrite, false, true };
        case 'n':
            return { ConflictAction::Skip, false, true };
        case 'a':
            return { ConflictAction::Overwrite, true, true };
        case 's':
            return { ConflictAction::Skip, true, true };
        case 'r':
            return { ConflictAction::Rename, false, true };
        case 'c':
            return { ConflictAction::Cancel, false, true };
        default:
            break; // ask again
        }
    }
}

void TerminalAsk::askPassword(Qvfs::Question *question)
{
    if (m_mode != Interactive) {
        question->refuse();
        return;
    }
    const Qvfs::PasswordQuestion q = question->password();
    const QString where = urlArg(q.url, Sink::Terminal);
    QString user = q.user;
    if (!q.realm.isEmpty())
        readLine(
            QCoreApplication::translate("qvfs", "Authentication needed for %1 (%2).\n").arg(where, textItem(q.realm)),
            true);
    if (!q.secretOnly) {
        const QByteArray typed = readLine(user.isEmpty()
                ? QCoreApplication::translate("qvfs", "User name for %1: ").arg(where)
                : QCoreApplication::translate("qvfs", "User name for %1 [%2]: ").arg(where, nameItem(user)));
        if (typed.isNull()) {
            question->refuse();
            return;
        }
        if (!typed.trimmed().isEmpty())
            user = QString::fromUtf8(typed.trimmed());
    }
    const QString prompt = !q.prompt.isEmpty()
        ? textItem(q.prompt.trimmed()) + QLatin1Char(' ')
        : QCoreApplication::translate("qvfs", "Password for %1 at %2: ").arg(nameItem(user), where);
    const QByteArray password = readLine(prompt, false);
    if (password.isNull()) {
        question->refuse();
        return;
    }
    question->answerPassword(user, QString::fromUtf8(password));
}

void TerminalAsk::askTrust(Qvfs::Question *question, const QString &text)
{
    switch (m_mode) {
    case AlwaysYes:
        question->answerTrust(Qvfs::Trust::Once);
        return;
    case AlwaysNo:
    case Refuse:
        question->refuse();
        return;
    case Interactive:
        break;
    }
    const QByteArray line = readLine(text).trimmed();
    const char c = line.isEmpty() ? 0 : char(line.at(0) | 0x20);
    if (c == 'y')
        question->answerTrust(Qvfs::Trust::Once);
    else if (c == 'a')
        question->answerTrust(Qvfs::Trust::Always);
    else
        question->refuse();
}

QByteArray TerminalAsk::readLine(const QString &prompt, bool echo)
{
    // A line that ends in "\n" is information only: shown, nothing read.
    const bool readNothing = prompt.endsWith(QLatin1Char('\n'));
    flushOut();
    if (ProgressBar *bar = ProgressBar::current())
        bar->hide();
    const int fd = ::open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return QByteArray();
    const QByteArray p = prompt.toLocal8Bit();
    (void)!::write(fd, p.constData(), size_t(p.size()));
    if (readNothing) {
        ::close(fd);
        return QByteArray("");
    }
    struct termios saved;
    bool restore = false;
    if (!echo && ::tcgetattr(fd, &saved) == 0) {
        struct termios quiet = saved;
        quiet.c_lflag &= ~tcflag_t(ECHO);
        setTerminalToRestore(fd, &saved);
        restore = ::tcsetattr(fd, TCSANOW, &quiet) == 0;
    }
    QByteArray line("");
    bool eof = true;
    for (;;) {
        char c;
        const ssize_t n = ::read(fd, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (c == '\n') {
            eof = false;
            break;
        }
        if (line.size() < 4096)
            line += c;
    }
    if (restore) {
        ::tcsetattr(fd, TCSANOW, &saved);
        (void)!::write(fd, "\n", 1);
    }
    setTerminalToRestore(-1, nullptr);
    ::close(fd);
    if (eof && line.isEmpty())
        return QByteArray();
    return line;
}

} // namespace Cli
