// SPDX-License-Identifier: LGPL-2.1-or-later
#include "terminalask.h"
#include "cli.h"
#include "progress.h"

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
QString urlItem(const Qvfs::MetaData &items, const char *key)
{
    const QByteArray raw = items.bytes(key);
    const QUrl url = QUrl::fromEncoded(raw, QUrl::StrictMode);
    return url.isValid() && !url.scheme().isEmpty() ? Qvfs::Url::displayString(url) : QString::fromUtf8(raw);
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
    const QByteArray kind = question->kind();
    if (kind == "conflict") {
        askConflict(question);
    } else if (kind == "password") {
        askPassword(question);
    } else if (kind == "hostkey") {
        askAccept(question,
            QCoreApplication::translate("qvfs",
                "The host key of %1 is not known.\nIts fingerprint is %2.\nConnect anyway and remember the key? [y/N] ")
                .arg(question->items().string("host"), question->items().string("fingerprint")));
    } else if (kind == "certificate") {
        askAccept(question,
            QCoreApplication::translate("qvfs", "The certificate of %1 is not trusted: %2\nConnect anyway? [y/N] ")
                .arg(question->items().string("host"), question->items().string("detail")));
    } else {
        question->refuse();
    }
}

void TerminalAsk::askConflict(Qvfs::Question *question)
{
    Qvfs::MetaData answer;
    switch (m_mode) {
    case AlwaysYes:
        answer.setBytes("action", "overwrite");
        answer.setNumber("apply-to-all", 1);
        question->answer(answer);
        return;
    case AlwaysNo:
        answer.setBytes("action", "skip");
        answer.setNumber("apply-to-all", 1);
        question->answer(answer);
        return;
    case Refuse:
        question->refuse();
        return;
    case Interactive:
        break;
    }
    const QString dest = urlItem(question->items(), "destination");
    const QString prompt = QCoreApplication::translate(
        "qvfs", "%1 already exists. Overwrite it?\n[y]es, [n]o, [a]ll, [s]kip all, [r]ename, [c]ancel: ")
                               .arg(dest);
    for (;;) {
        const QByteArray line = readLine(prompt).trimmed();
        if (line.isNull()) {
            answer.setBytes("action", "cancel");
            break;
        }
        const char c = line.isEmpty() ? 0 : char(line.at(0) | 0x20);
        if (c == 'y') {
            answer.setBytes("action", "overwrite");
        } else if (c == 'n') {
            answer.setBytes("action", "skip");
        } else if (c == 'a') {
            answer.setBytes("action", "overwrite");
            answer.setNumber("apply-to-all", 1);
        } else if (c == 's') {
            answer.setBytes("action", "skip");
            answer.setNumber("apply-to-all", 1);
        } else if (c == 'r') {
            answer.setBytes("action", "rename");
        } else if (c == 'c') {
            answer.setBytes("action", "cancel");
        } else {
            continue;
        }
        break;
    }
    question->answer(answer);
}

void TerminalAsk::askPassword(Qvfs::Question *question)
{
    if (m_mode != Interactive) {
        question->refuse();
        return;
    }
    const Qvfs::MetaData &items = question->items();
    const QString where = urlItem(items, "url");
    QByteArray user = items.bytes("user");
    const QString realm = items.string("realm");
    if (!realm.isEmpty())
        readLine(QCoreApplication::translate("qvfs", "Authentication needed for %1 (%2).\n").arg(where, realm), true);
    const QByteArray typed = readLine(user.isEmpty()
            ? QCoreApplication::translate("qvfs", "User name for %1: ").arg(where)
            : QCoreApplication::translate("qvfs", "User name for %1 [%2]: ").arg(where, QString::fromUtf8(user)));
    if (typed.isNull()) {
        question->refuse();
        return;
    }
    if (!typed.trimmed().isEmpty())
        user = typed.trimmed();
    const QByteArray password = readLine(
        QCoreApplication::translate("qvfs", "Password for %1 at %2: ").arg(QString::fromUtf8(user), where), false);
    if (password.isNull()) {
        question->refuse();
        return;
    }
    Qvfs::MetaData answer;
    answer.setBytes("user", user);
    answer.setBytes("password", password);
    question->answer(answer);
}

void TerminalAsk::askAccept(Qvfs::Question *question, const QString &text)
{
    Qvfs::MetaData answer;
    switch (m_mode) {
    case AlwaysYes:
        answer.setNumber("accept", 1);
        question->answer(answer);
        return;
    case AlwaysNo:
    case Refuse:
        question->refuse();
        return;
    case Interactive:
        break;
    }
    const QByteArray line = readLine(text).trimmed();
    if (!line.isEmpty() && (line.at(0) | 0x20) == 'y') {
        answer.setNumber("accept", 1);
        question->answer(answer);
        return;
    }
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
