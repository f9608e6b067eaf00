// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cli.h"
#include "format.h"
#include "progress.h"
#include "terminalask.h"

#include <Qvfs/Error>
#include <Qvfs/Job>
#include <Qvfs/Protocol>
#include <Qvfs/Url>

#include <QCoreApplication>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <termios.h>
#include <unistd.h>

namespace Cli
{

Context &ctx()
{
    static Context c;
    return c;
}

// ---------------------------------------------------------------- output

static QByteArray &outBuffer()
{
    static QByteArray b;
    return b;
}

static bool writeAll(int fd, const char *data, qsizetype size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size_t(size));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {
                // A non-blocking descriptor inherited from the caller: wait until it drains.
                fd_set set;
                FD_ZERO(&set);
                FD_SET(fd, &set);
                ::select(fd + 1, nullptr, &set, nullptr, nullptr);
                continue;
            }
            return false;
        }
        data += n;
        size -= n;
    }
    return true;
}

static void stdoutFailed()
{
    static bool reported = false;
    if (reported)
        return;
    reported = true;
    const int err = errno;
    error(QCoreApplication::translate("qvfs", "write error on standard output: %1")
              .arg(QString::fromLocal8Bit(strerror(err))));
    setFailed();
}

void out(QByteArrayView bytes)
{
    QByteArray &b = outBuffer();
    b.append(bytes.data(), bytes.size());
    if (b.size() >= 64 * 1024)
        flushOut();
}

/*! Writes to standard output; a standard output that was closed at start fails as it would have (EBADF). */
static bool writeOut(const char *data, qsizetype size)
{
    if (ctx().stdoutClosed && size > 0) {
        errno = EBADF;
        return false;
    }
    return writeAll(STDOUT_FILENO, data, size);
}

void flushOut()
{
    QByteArray &b = outBuffer();
    if (b.isEmpty())
        return;
    if (!writeOut(b.constData(), b.size()))
        stdoutFailed();
    b.clear();
}

bool writeStdout(QByteArrayView bytes)
{
    flushOut();
    if (writeOut(bytes.data(), bytes.size()))
        return true;
    stdoutFailed();
    return false;
}

void writeStderr(QByteArrayView text)
{
    writeAll(STDERR_FILENO, text.data(), text.size());
}

void prepareJob(Qvfs::Job *job)
{
    job->setAskDelegate(TerminalAsk::instance());
    QObject::connect(job, &Qvfs::Job::leftOut, job, [](Qvfs::Job *, const QUrl &url, int code) {
        error(QCoreApplication::translate("qvfs", "left out %1: %2")
                  .arg(urlArg(url), Qvfs::errorText(code, { urlArg(url, Sink::Stderr) })));
        setFailed();
    });
}

void error(const QString &message)
{
    flushOut();
    if (ProgressBar *bar = ProgressBar::current())
        bar->hide();
    const QByteArray line = QByteArray("qvfs: " + message.toLocal8Bit() + '\n');
    writeStderr(line);
}

namespace
{
/*! A URL the worker sent as an error argument (fully encoded), or an invalid QUrl for text. */
QUrl urlFromErrorArg(const QString &arg)
{
    const qsizetype colon = arg.indexOf(QLatin1Char(':'));
    if (colon <= 0 || arg.mid(colon, 3) != QLatin1String("://"))
        return QUrl();
    const QUrl url = QUrl::fromEncoded(arg.toUtf8(), QUrl::StrictMode);
    return url.isValid() ? url : QUrl();
}
} // namespace

void jobError(const Qvfs::Job *job)
{
    reportError(job->error(), job->errorArgs());
}

void reportError(int code, const QStringList &args)
{
    // The names in the text are quoted, on a terminal or not (as coreutils does): the
    // library's text is made with stand-ins, which are then replaced by the quoted names
    // (a name from a listing or a server may hold escape sequences, and `2>&1 | tee log`
    // still shows them on a screen).
    QStringList standIns;
    for (qsizetype i = 0; i < args.size(); ++i)
        standIns << QString(QChar(0xE000 + int(i)));
    QString text = Qvfs::errorText(code, standIns);
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QUrl url = urlFromErrorArg(args.at(i));
        const QString shown
            = url.isValid() ? urlArg(url, Sink::Stderr) : nameArg(args.at(i).toUtf8(), Sink::Stderr, NameStyle::Text);
        text.replace(QChar(0xE000 + int(i)), shown);
    }
    error(text);
    setFailed();
}

// ---------------------------------------------------------------- names on a terminal

bool isTerminal(Sink sink)
{
    switch (sink) {
    case Sink::Stdout:
        return ctx().stdoutTty;
    case Sink::Stderr:
        return ctx().stderrTty;
    case Sink::Terminal:
        return true;
    }
    return true;
}

namespace
{
// Names in messages are escaped wherever the messages go (as coreutils does): `qvfs … 2>&1
// | tee log` must not put a listing's raw escape sequences on the screen either. Output
// meant for programs (names on stdout into a pipe) keeps the bytes.
bool escapes(Sink sink)
{
    return sink == Sink::Stderr || isTerminal(sink);
}
} // namespace

QByteArray shownName(QByteArrayView name, Sink sink, NameStyle style)
{
    if (escapes(sink)) {
        switch (style) {
        case NameStyle::Plain:
            return shellEscape(name, QuoteStyle::IfNeeded);
        case NameStyle::Quoted:
            return shellEscape(name, QuoteStyle::Always);
        case NameStyle::Text:
            return hasControlOrInvalid(name) ? shellEscape(name, QuoteStyle::Always) : name.toByteArray();
        }
    }
    if (style == NameStyle::Quoted) {
        QByteArray quoted;
        quoted.reserve(name.size() + 2);
        quoted += '\'';
        quoted.append(name.data(), name.size());
        quoted += '\'';
        return quoted;
    }
    return name.toByteArray();
}

QString nameArg(QByteArrayView name, Sink sink, NameStyle style)
{
    const QByteArray shown = shownName(name, sink, style);
    // Escaped it is UTF-8; raw bytes go through the locale as before.
    return escapes(sink) ? QString::fromUtf8(shown) : QString::fromLocal8Bit(shown);
}

QString urlArg(const QUrl &url, Sink sink, NameStyle style)
{
    if (Qvfs::Url::isLocalFile(url)) {
        const QByteArray path = Qvfs::Url::localPath(url);
        if (!path.isEmpty())
            return nameArg(path, sink, style);
    }
    return nameArg(Qvfs::Url::displayString(url).toUtf8(), sink, style);
}

// ---------------------------------------------------------------- URLs

QByteArray operandShown(const QByteArray &arg, const QUrl &url)
{
    return url.password().isEmpty() ? arg : url.toEncoded(QUrl::RemovePassword);
}

namespace
{
/*!
 * \a arg as a URL of the "scheme:/path" form KIO and GIO write (trash:/, smb:/): "scheme:///path"
 * when an installed worker other than file's serves that scheme; \a arg otherwise (a local
 * folder may be called "a:").
 */
QByteArray withAuthority(const QByteArray &arg)
{
    const qsizetype colon = arg.indexOf(':');
    if (colon <= 0 || arg.mid(colon, 2) != ":/" || arg.mid(colon, 3) == "://")
        return arg;
    const QByteArray scheme = arg.left(colon);
    for (qsizetype i = 0; i < scheme.size(); ++i) {
        const char c = scheme.at(i);
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
            || (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'));
        if (!ok)
            return arg;
    }
    const Qvfs::Protocol p = Qvfs::Protocol::find(QString::fromLatin1(scheme));
    if (!p.isValid() || p.scheme() == QLatin1String("file"))
        return arg;
    return scheme + "://" + arg.mid(colon + 1);
}
} // namespace

QUrl toUrl(const QByteArray &given)
{
    const QByteArray arg = withAuthority(given);
    QUrl url = Qvfs::Url::fromUserInput(arg, ctx().cwd);
    if (!url.isValid() && arg.size() > 7 && QByteArrayView(arg).first(7).compare("file://", Qt::CaseInsensitive) == 0) {
        const QUrl other = QUrl::fromEncoded(arg, QUrl::TolerantMode);
        if (other.isValid() && !other.host().isEmpty()) {
            error(QCoreApplication::translate(
                "qvfs", "%1 names the host %2: file URLs can only reach files of this machine")
                      .arg(nameArg(arg), nameArg(other.host().toUtf8(), Sink::Stderr, NameStyle::Plain)));
            setFailed();
            return QUrl();
        }
    }
    if (url.isValid() && decodedPath(url).contains('\0'))
        url = QUrl(); // "%00": a path cannot hold a NUL byte, and must not be cut at one
    if (url.isValid())
        return url;
    const bool relative = !arg.startsWith('/') && !arg.contains("://") && !arg.startsWith("file:");
    if (!arg.isEmpty() && relative && ctx().cwd.isEmpty())
        error(QCoreApplication::translate("qvfs", "cannot resolve %1: the working folder is unknown")
                  .arg(nameArg(arg, Sink::Stderr, NameStyle::Plain)));
    else
        error(QCoreApplication::translate("qvfs", "invalid path or URL: %1").arg(nameArg(arg)));
    setFailed();
    return QUrl();
}

QByteArray lastSegment(QByteArrayView path)
{
    while (path.size() > 1 && path.endsWith('/'))
        path.chop(1);
    if (path == QByteArrayView("/"))
        return QByteArray();
    const qsizetype slash = path.lastIndexOf('/');
    return (slash < 0 ? path : path.sliced(slash + 1)).toByteArray();
}

bool sameLocation(const QUrl &a, const QUrl &b)
{
    if (Qvfs::Url::isLocalFile(a) || Qvfs::Url::isLocalFile(b))
        return Qvfs::Url::isLocalFile(a) && Qvfs::Url::isLocalFile(b);
    const auto where = QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment | QUrl::RemovePassword;
    return a.adjusted(where) == b.adjusted(where);
}

// ---------------------------------------------------------------- arguments

int usageError(const char *command, const QString &message)
{
    error(message);
    const QString cmd = command ? QLatin1String("qvfs ") + QLatin1String(command) : QStringLiteral("qvfs");
    writeStderr(QByteArray(
        QCoreApplication::translate("qvfs", "Try '%1 --help' for more information.").arg(cmd).toLocal8Bit() + '\n'));
    return Usage;
}

Qvfs::ConflictPolicy conflictPolicy(const Parsed &p, int force, int noClobber, int rename)
{
    const int last = p.last({ force, noClobber, rename });
    if (last == force)
        return Qvfs::ConflictPolicy::Overwrite;
    if (last == noClobber)
        return Qvfs::ConflictPolicy::Skip;
    if (last == rename)
        return Qvfs::ConflictPolicy::Rename;
    if (ctx().answers == Answers::Yes)
        return Qvfs::ConflictPolicy::Overwrite;
    if (ctx().answers == Answers::No)
        return Qvfs::ConflictPolicy::Skip;
    return ctx().stdinTty ? Qvfs::ConflictPolicy::Ask : Qvfs::ConflictPolicy::Fail;
}

bool parseArgs(const char *command, const QList<QByteArray> &args, const QList<OptionSpec> &specs, Parsed *parsed)
{
    QList<OptionSpec> all = specs;
    all.append({ OptHelp, 0, "help", false });
    all.append({ OptYes, 0, "yes", false });
    all.append({ OptNo, 0, "no", false });
    bool optionsEnded = false;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QByteArray &a = args.at(i);
        if (optionsEnded || a.size() < 2 || a.at(0) != '-') {
            parsed->operands.append(a);
            continue;
        }
        if (a == "--") {
            optionsEnded = true;
            continue;
        }
        if (a.startsWith("--")) {
            const qsizetype eq = a.indexOf('=');
            const QByteArray name = a.mid(2, eq < 0 ? -1 : eq - 2);
            const OptionSpec *spec = nullptr;
            for (const OptionSpec &s : std::as_const(all)) {
                if (s.longName && name == s.longName)
                    spec = &s;
            }
            if (!spec) {
                usageError(command, QCoreApplication::translate("qvfs", "unknown option %1").arg(nameArg(a)));
                return false;
            }
            QByteArray value;
            if (spec->takesValue) {
                if (eq >= 0) {
                    value = a.mid(eq + 1);
                } else if (i + 1 < args.size()) {
                    value = args.at(++i);
                } else {
                    usageError(
                        command, QCoreApplication::translate("qvfs", "option %1 requires a value").arg(nameArg(a)));
                    return false;
                }
            } else if (eq >= 0) {
                usageError(command,
                    QCoreApplication::translate("qvfs", "option %1 takes no value")
                        .arg(nameArg(QByteArray("--" + name))));
                return false;
            }
            parsed->flags.append(spec->id);
            parsed->values.append(value);
            continue;
        }
        for (qsizetype k = 1; k < a.size(); ++k) {
            const char c = a.at(k);
            const OptionSpec *spec = nullptr;
            for (const OptionSpec &s : std::as_const(all)) {
                if (s.shortName && s.shortName == c)
                    spec = &s;
            }
            if (!spec) {
                usageError(command,
                    QCoreApplication::translate("qvfs", "unknown option %1")
                        .arg(nameArg(QByteArray(QByteArray("-") + c))));
                return false;
            }
            QByteArray value;
            if (spec->takesValue) {
                if (k + 1 < a.size()) {
                    value = a.mid(k + 1);
                } else if (i + 1 < args.size()) {
                    value = args.at(++i);
                } else {
                    usageError(command,
                        QCoreApplication::translate("qvfs", "option %1 requires a value")
                            .arg(nameArg(QByteArray(QByteArray("-") + c))));
                    return false;
                }
                k = a.size();
            }
            parsed->flags.append(spec->id);
            parsed->values.append(value);
        }
    }
    return true;
}

// ---------------------------------------------------------------- signals

namespace
{
volatile sig_atomic_t s_progressVisible = 0;
volatile sig_atomic_t s_restoreFd = -1;
struct termios s_restoreState;

extern "C" void onTerminatingSignal(int sig)
{
    if (s_restoreFd >= 0)
        ::tcsetattr(s_restoreFd, TCSANOW, &s_restoreState);
    if (s_progressVisible || s_restoreFd >= 0) {
        const char nl = '\n';
        (void)!::write(STDERR_FILENO, &nl, 1);
    }
    // Die by the signal, as the shell expects; the workers see their sockets close.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}
} // namespace

void installSignalHandlers()
{
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = onTerminatingSignal;
    sigemptyset(&sa.sa_mask);
    for (int sig : { SIGINT, SIGTERM, SIGHUP }) {
        struct sigaction old;
        // Keep a signal the caller ignores ignored (nohup, background jobs).
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        ::sigaction(sig, &sa, nullptr);
    }
}

void setProgressLineVisible(bool visible)
{
    s_progressVisible = visible ? 1 : 0;
}

void setTerminalToRestore(int fd, const void *termiosState)
{
    if (fd >= 0 && termiosState) {
        std::memcpy(&s_restoreState, termiosState, sizeof s_restoreState);
        s_restoreFd = fd;
    } else {
        s_restoreFd = -1;
    }
}

} // namespace Cli
