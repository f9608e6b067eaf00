// SPDX-License-Identifier: LGPL-2.1-or-later
// The smb worker's change notifier (smbnotifier_p.h): a process of its own that keeps one
// SMB2 CHANGE_NOTIFY request outstanding on one folder and writes what the server reports
// as lines to its standard output. No Qt event loop, no worker connection: a libsmbclient
// context, a pipe in and a pipe out.
#include "smbnotifier_p.h"

#include "fileops_util_p.h"

#include <QHash>

#include <cerrno>
#include <csignal>

#include <poll.h>
#include <sys/prctl.h>
#include <unistd.h>

namespace Qvfs::Smb::Notifier
{

namespace
{

constexpr uint32_t Filter = SMBC_NOTIFY_CHANGE_FILE_NAME | SMBC_NOTIFY_CHANGE_DIR_NAME | SMBC_NOTIFY_CHANGE_ATTRIBUTES
    | SMBC_NOTIFY_CHANGE_SIZE | SMBC_NOTIFY_CHANGE_LAST_WRITE | SMBC_NOTIFY_CHANGE_CREATION;
// A request the server fails at once, again and again, is not worth repeating.
constexpr int MaxQuickFailures = 5;

bool say(QByteArrayView what, QByteArrayView arg = {})
{
    QByteArray line(what.data(), what.size());
    if (!arg.isNull())
        line += ' ' + QByteArray(arg.data(), arg.size()).toPercentEncoding();
    return FileOps::writeAll(STDOUT_FILENO, QByteArray(line + '\n'));
}

/*! Whether the worker closed our standard input (or went away). */
bool inputClosed()
{
    pollfd p { STDIN_FILENO, POLLIN, 0 };
    if (::poll(&p, 1, 0) <= 0)
        return false;
    if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
        return true;
    char c;
    return ::read(STDIN_FILENO, &c, 1) <= 0; // nothing more is ever sent: data or EOF ends us
}

/*! The start message: "KEY VALUE" lines up to "end" (at most 64 KiB). */
bool readStart(QHash<QByteArray, QByteArray> *fields)
{
    QByteArray in;
    char buf[4096];
    while (!in.contains("\nend\n") && !in.startsWith("end\n")) {
        const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || in.size() > 64 * 1024)
            return false;
        in.append(buf, n);
    }
    for (const QByteArray &line : in.split('\n')) {
        const qsizetype sp = line.indexOf(' ');
        if (sp > 0)
            fields->insert(line.left(sp), QByteArray::fromPercentEncoding(line.mid(sp + 1)));
    }
    return fields->contains("url");
}

struct State
{
    bool ready = false; // "ready" said: the first request was outstanding
    bool lost = false; // "lost" to say once the request issued again is outstanding
    bool called = false; // the callback ran since the request was (re)issued
    bool stop = false;
};

// The word a change is told with; "modify" for the others (modified, and streams: the
// entry is looked at again).
const char *wordFor(uint32_t action)
{
    static constexpr struct
    {
        uint32_t action;
        const char *word;
    } words[] = {
        { SMBC_NOTIFY_ACTION_ADDED, "add" },
        { SMBC_NOTIFY_ACTION_REMOVED, "remove" },
        { SMBC_NOTIFY_ACTION_OLD_NAME, "from" },
        { SMBC_NOTIFY_ACTION_NEW_NAME, "to" },
    };
    for (const auto &w : words) {
        if (w.action == action)
            return w.word;
    }
    return "modify";
}

int onChanges(const struct smbc_notify_callback_action *actions, size_t count, void *data)
{
    auto *st = static_cast<State *>(data);
    // Called at all, the request is outstanding (on the first tick, or with its answer).
    st->called = true;
    bool ok = true;
    if (!st->ready) {
        st->ready = true;
        ok = say("ready");
    }
    if (st->lost) {
        st->lost = false;
        ok = ok && say("lost");
    }
    for (size_t i = 0; ok && i < count; ++i) {
        const char *name = actions[i].filename;
        if (!name || !*name)
            continue;
        ok = say(wordFor(actions[i].action), name);
    }
    if (!ok || inputClosed())
        st->stop = true;
    return st->stop ? 1 : 0;
}

} // namespace

QByteArray startMessage(const QByteArray &libraryUrl, int port, const Login &login)
{
    QByteArray m;
    const auto field = [&m](const char *key, const QByteArray &value) {
        m += key;
        m += ' ';
        m += value.toPercentEncoding();
        m += '\n';
    };
    field("url", libraryUrl);
    field("port", QByteArray::number(port));
    field("domain", login.domain);
    field("user", login.user);
    field("password", login.password);
    field("guest", login.guest ? "1" : "0");
    m += "end\n";
    return m;
}

int run()
{
    // The worker's end is ours too, even when it is killed without closing our input.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() == 1)
        return 0;
    QHash<QByteArray, QByteArray> f;
    if (!readStart(&f)) {
        say("error", QByteArray::number(EINVAL));
        return 1;
    }
    Login login;
    login.domain = f.value("domain");
    login.user = f.value("user");
    login.password = f.value("password");
    login.guest = f.value("guest") == "1";
    const QByteArray url = f.value("url");
    Context ctx;
    if (!ctx.init([login](const char *, const char *) { return login; })) {
        say("error", QByteArray::number(errno));
        return 1;
    }
    ctx.setPort(f.value("port").toInt());
    SMBCCTX *c = ctx.get();
    SMBCFILE *dir = smbc_getFunctionOpendir(c)(c, url.constData());
    if (!dir) {
        say("error", QByteArray::number(errno));
        return 1;
    }
    State st;
    int quickFailures = 0;
    for (;;) {
        st.called = false;
        const int rc = smbc_getFunctionNotify(c)(c, dir, 0, Filter, NotifyTickMs, &onChanges, &st);
        if (st.stop)
            break;
        const int err = rc < 0 ? errno : 0;
        // The request failed: the folder was deleted, the connection dropped, or the
        // server's buffer of changes overflowed (NOTIFY_ENUM_DIR). Which one, the folder
        // opened again tells.
        smbc_getFunctionClosedir(c)(c, dir);
        ctx.purge();
        dir = smbc_getFunctionOpendir(c)(c, url.constData());
        if (!dir) {
            const int openErr = errno;
            if (openErr == ENOENT || openErr == ENOTDIR)
                say("gone");
            else
                say("error", QByteArray::number(openErr));
            return 1;
        }
        quickFailures = st.called ? 0 : quickFailures + 1;
        if (quickFailures >= MaxQuickFailures) {
            // Failed before it was ever outstanding, again and again: the server does not
            // take change notifications here (or no longer answers).
            say("error", QByteArray::number(err ? err : EOPNOTSUPP));
            break;
        }
        st.lost = st.ready; // what happened before the new request is outstanding is unknown
    }
    smbc_getFunctionClosedir(c)(c, dir);
    return 0;
}

} // namespace Qvfs::Smb::Notifier
