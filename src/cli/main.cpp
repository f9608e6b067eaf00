// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs-client: the command-line client of Qvfs, executed by the `qvfs` launcher
// (launcher.c) in the same process.
//
// Start-up is part of the job: a one-shot `qvfs stat FILE` must answer in a few
// milliseconds. So the worker for the first URL is started first thing (the launcher
// starts a local one before this program loads Qt; otherwise it starts while this process
// parses its arguments), translations are loaded only for a language other than English,
// and nothing else is touched before it is needed.
#include "cli.h"
#include "commands.h"
#include "launchargs.h"
#include "qvfs_version.h"
#include "qvfscli_debug.h"
#include "translations_p.h"

#include <Qvfs/Job>
#include <Qvfs/Url>

#include <QCoreApplication>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace Cli;

namespace
{

struct Command
{
    const char *name;
    int (*run)(const QList<QByteArray> &args);
};

// The commands that take URLs are listed in launchargs.h too (their worker starts early),
// but mount: its workers belong to the mount process.
const Command commands[] = {
    { "ls", cmdLs },
    { "stat", cmdStat },
    { "cp", cmdCp },
    { "mv", cmdMv },
    { "rm", cmdRm },
    { "mkdir", cmdMkdir },
    { "cat", cmdCat },
    { "put", cmdPut },
    { "du", cmdDu },
    { "df", cmdDf },
    { "watch", cmdWatch },
    { "trash", cmdTrash },
    { "mount", cmdMount },
    { "umount", cmdUmount },
};

const Command *findCommand(const QByteArray &name)
{
    for (const Command &c : commands) {
        if (name == c.name)
            return &c;
    }
    return nullptr;
}

QByteArray currentDirectory()
{
    QByteArray buf(PATH_MAX, Qt::Uninitialized);
    for (int round = 0; round < 8; ++round) {
        if (::getcwd(buf.data(), size_t(buf.size())))
            return QByteArray(buf.constData());
        if (errno != ERANGE)
            return QByteArray();
        buf.resize(buf.size() * 2);
    }
    return QByteArray();
}

/*!
 * Puts /dev/null on each of the descriptors 0, 1 and 2 that is closed, before anything
 * else can open a descriptor. Otherwise the next one opened (Qt's event descriptor, the
 * socket to a worker) would get the number: what we print would go to the worker as
 * requests, and `put` would read an event descriptor as its input. Returns false when
 * /dev/null cannot be opened.
 */
bool occupyClosedStandardDescriptors(bool *stdinClosed, bool *stdoutClosed)
{
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        const int null = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (null < 0)
            return false;
        if (null != fd) {
            // open() takes the lowest free number, fd itself once the lower ones are filled;
            // should it not, move it there.
            if (::dup2(null, fd) < 0)
                return false;
            ::close(null);
        }
        if (fd == 0)
            *stdinClosed = true;
        else if (fd == 1)
            *stdoutClosed = true;
    }
    return true;
}

/*!
 * Overwrites the password of every URL operand (scheme://user:password@host/...) in place
 * with '*', as curl does with its credentials: /proc/PID/cmdline is readable by every
 * user for as long as the command runs. Call it once the arguments are copied.
 */
void hideUrlPasswords(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        char *scheme = std::strstr(argv[i], "://");
        if (!scheme)
            continue;
        char *authority = scheme + 3;
        char *const end = authority + std::strcspn(authority, "/?#");
        char *at = nullptr;
        for (char *p = authority; p < end; ++p) {
            if (*p == '@')
                at = p;
        }
        if (!at)
            continue;
        char *colon = static_cast<char *>(std::memchr(authority, ':', size_t(at - authority)));
        for (char *p = colon ? colon + 1 : at; p < at; ++p)
            *p = '*';
    }
}

} // namespace

namespace Cli
{

QString helpText(const char *command)
{
    const QByteArray c(command ? command : "");
    if (c.isEmpty())
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs COMMAND [OPTION]... [URL]...\n"
            "Lists, copies, moves and deletes files on every file system Qvfs reaches: local\n"
            "paths and URLs (file:///tmp/x, or any scheme an installed worker serves).\n"
            "Relative paths start at the working folder.\n"
            "\n"
            "Commands:\n"
            "  ls [-l] [-a] [-R] [-d] [-1] [--json] [URL]...  list folders\n"
            "  stat [-L] [--json] URL...                      describe files\n"
            "  cp [-r] [-f|-n|--rename] SRC... DST            copy files and folders\n"
            "  mv [-f|-n|--rename] SRC... DST                 move or rename\n"
            "  rm [-r] [-f] [--trash] URL...                  delete files and folders\n"
            "  mkdir [-p] [-m MODE] URL...                    create folders\n"
            "  cat [--offset N] [--length L] URL...           write files to standard output\n"
            "  put [-f] URL                                   write standard input to a file\n"
            "  du [-h] [--json] [URL]...                      count the bytes under folders\n"
            "  df [-h] [--json] [URL]...                      show the size and free space\n"
            "  watch [-a] [-c] [--json] URL...                list folders, then their changes\n"
            "  trash [--list|--restore|--empty] [URL]...      move to the trash, list, restore\n"
            "  mount [-f] [URL] DIR                           show a URL tree as files at DIR\n"
            "  umount DIR...                                  unmount what qvfs mount mounted\n"
            "  help [COMMAND]                                 show this help, or a command's\n"
            "\n"
            "Options of every command:\n"
            "      --yes      answer every question with yes (overwrite existing files,\n"
            "                 accept unknown host keys and certificates)\n"
            "      --no       answer every question with no (skip existing files, refuse)\n"
            "      --help     show the help of the command\n"
            "      --version  show the version\n"
            "\n"
            "Without --yes or --no, questions (existing files, passwords, unknown host keys,\n"
            "untrusted certificates) are asked on the terminal when standard input is one,\n"
            "and refused otherwise.\n"
            "\n"
            "cp, mv, cat, put and du show their progress on standard error when it is a\n"
            "terminal and the work takes more than a second (QVFS_PROGRESS_DELAY_MS sets\n"
            "the delay in milliseconds).\n"
            "\n"
            "Exit status: 0 on success, 1 when an operation failed (the other arguments are\n"
            "still processed), 2 on wrong usage.\n");
    if (c == "ls")
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs ls [OPTION]... [URL]...\n"
            "Lists the content of each folder (the working folder by default) sorted by name\n"
            "(byte order), and shows each file given. Names starting with '.' are left out\n"
            "unless -a is given.\n"
            "\n"
            "  -l, --long        one line per entry: type and permissions, links, owner,\n"
            "                    group, size, modification time, name (-> link target)\n"
            "  -a, --all         show names starting with '.' too ('.' and '..' themselves\n"
            "                    are never listed; -A, --almost-all is the same)\n"
            "  -R, --recursive   list the folders below too, each in a section of its own\n"
            "  -d, --directory   show folders themselves, not their content\n"
            "  -1                one name per line (the default when standard output is not\n"
            "                    a terminal)\n"
            "      --json        JSON Lines for scripts: one object per entry (see below)\n"
            "\n"
            "On a terminal, names are shown in columns, and names with blanks, shell\n"
            "characters or control characters are quoted the way a shell reads them\n"
            "('a b', 'a'$'\\n''b'). Otherwise they are written as they are, one per line.\n"
            "\n"
            "JSON Lines: each object has, where known, the keys name, url, type (\"file\",\n"
            "\"dir\", \"symlink\", \"chardev\", \"blockdev\", \"fifo\", \"socket\", \"unknown\"),\n"
            "size, mode (the permission bits as a number), nlink, uid, gid, user, group,\n"
            "mtime (seconds since 1970), mtime_ns (the same time in nanoseconds), inode,\n"
            "device, blocks, target (of a symbolic link) and hidden. In recursive listings\n"
            "name is the path below the listed folder. File names are bytes: a name that is\n"
            "valid UTF-8 is a JSON string; any other name is given as \"name\": null plus\n"
            "\"name_bytes\": the exact bytes in base64 (likewise target/target_bytes,\n"
            "user/user_bytes, group/group_bytes). \"url\" is percent-encoded ASCII and exact.\n");
    if (c == "stat")
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs stat [OPTION]... URL...\n"
            "Shows type, size, permissions, owner and times of each URL, like stat(1).\n"
            "\n"
            "  -L, --dereference   describe the target of a symbolic link (a link that\n"
            "                      cannot be followed is an error)\n"
            "      --json          one JSON object per line, with the keys of\n"
            "                      'qvfs ls --json' (see 'qvfs help ls') plus atime,\n"
            "                      atime_ns, btime and btime_ns; name is the file's\n"
            "                      own name, url the URL asked about\n");
    if (c == "cp")
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs cp [OPTION]... SRC DST\n"
            "  or:  qvfs cp [OPTION]... SRC... FOLDER\n"
            "Copies SRC to DST, or each SRC into the existing FOLDER, keeping permissions\n"
            "and times as cp -p does (setuid and setgid only where the copy has the\n"
            "source's owner). A copied file appears at its destination only once it is\n"
            "complete.\n"
            "\n"
            "  -r, -R, --recursive   copy folders and everything in them\n"
            "  -f, --force           overwrite existing files\n"
            "  -n, --no-clobber      skip existing files\n"
            "      --rename          copy under a free name (\"name (1).ext\") instead\n"
            "\n"
            "Without -f, -n or --rename, an existing destination file is asked about when\n"
            "standard input is a terminal, and is an error otherwise. --yes overwrites,\n"
            "--no skips.\n"
            "\n"
            "Without -r, a pipe or a device, or a link to one (/dev/stdin, <(command)), is\n"
            "copied as the data read from it; with -r it is copied as it is, like cp -R.\n");
    if (c == "mv")
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs mv [OPTION]... SRC DST\n"
            "  or:  qvfs mv [OPTION]... SRC... FOLDER\n"
            "Moves or renames SRC to DST, or moves each SRC into the existing FOLDER.\n"
            "Sources are removed only after everything was copied.\n"
            "\n"
            "  -f, --force        overwrite existing files\n"
            "  -n, --no-clobber   skip existing files\n"
            "      --rename       move under a free name (\"name (1).ext\") instead\n"
            "\n"
            "Without -f, -n or --rename, an existing destination file is asked about when\n"
            "standard input is a terminal, and is an error otherwise. --yes overwrites,\n"
            "--no skips.\n");
    if (c == "rm")
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs rm [OPTION]... URL...\n"
            "Deletes files and symbolic links (never their targets), and with -r folders.\n"
            "\n"
            "  -r, -R, --recursive   delete folders and everything in them\n"
            "  -f, --force           ignore URLs that do not exist\n"
            "      --trash           move to the trash instead (see 'qvfs help trash')\n");
    if (c == "trash")
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs trash URL...\n"
            "       qvfs trash --list [-l] [-a] [-1] [--json]\n"
            "       qvfs trash --restore [-f|-n|--rename] NAME...\n"
            "       qvfs trash --empty\n"
            "Moves local files and folders to the trash of their own file system (the home\n"
            "trash, or the .Trash-UID folder of another volume: a rename, never a copy),\n"
            "as desktops and 'gio trash' do; what they trashed is listed and restored here\n"
            "too.\n"
            "\n"
            "      --list        list every trash, as 'qvfs ls trash:/' (names are\n"
            "                    TRASH-NAME, e.g. 0-report.pdf; --json adds original_path\n"
            "                    and deletion_time)\n"
            "      --restore     move the named entries back to where they were trashed\n"
            "                    from, making missing folders\n"
            "  -f, --force       restore over an existing file (folders are merged)\n"
            "  -n, --no-clobber  leave an entry in the trash when its place is taken\n"
            "      --rename      restore under a free name instead\n"
            "      --empty       delete everything in every trash\n"
            "\n"
            "Without -f, -n or --rename, a restore onto an existing file is asked about when\n"
            "standard input is a terminal, and is an error otherwise.\n");
    if (c == "mkdir")
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs mkdir [OPTION]... URL...\n"
            "Creates folders.\n"
            "\n"
            "  -p, --parents     create missing parent folders too; an existing folder is\n"
            "                    no error\n"
            "  -m, --mode=MODE   the permissions of the new folders, in octal (750)\n");
    if (c == "cat")
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs cat [OPTION]... URL...\n"
            "Writes the content of each URL to standard output, one after the other. Data\n"
            "is read only as fast as standard output takes it.\n"
            "\n"
            "      --offset=N   start N bytes into each file (past its end: nothing)\n"
            "      --length=L   write at most L bytes of each file\n"
            "\n"
            "With --offset or --length the file is opened for random access and only the\n"
            "bytes asked for are read; its protocol must support that (file:// does).\n");
    if (c == "put")
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs put [OPTION]... URL\n"
            "Writes standard input to URL. The file appears only once all the data is\n"
            "written; on an error an existing file stays as it was.\n"
            "\n"
            "  -f, --force   replace URL when it exists (otherwise that is an error)\n");
    if (c == "du")
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs du [OPTION]... [URL]...\n"
            "Adds up the sizes of the files under each URL (the working folder by default)\n"
            "and prints the total (the apparent size, like 'du -sb'), a tab and the URL as\n"
            "given. Symbolic links are not followed.\n"
            "\n"
            "  -h, --human-readable   sizes like 4.0K, 15M, 1.2G\n"
            "  -b, --bytes            sizes in bytes (the default)\n"
            "  -s, --summarize        accepted out of habit: only totals are printed\n"
            "      --json             one JSON object per URL: name (or name_bytes, see\n"
            "                         'qvfs help ls'), url, bytes, files, dirs\n");
    if (c == "df")
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs df [OPTION]... [URL]...\n"
            "Shows the size, the used and the available space of the file system that holds\n"
            "each URL (the working folder by default), like df(1): one line each under a\n"
            "heading, with Use% = used / (used + available), rounded up, and the URL as\n"
            "given. Sizes are in bytes. A figure the protocol does not give is shown as '-'.\n"
            "Local files report their file system (statvfs), sftp:// servers theirs\n"
            "(statvfs@openssh.com), WebDAV servers the user's quota (RFC 4331); others\n"
            "cannot tell, which is an error.\n"
            "\n"
            "  -h, --human-readable   sizes like 4.0K, 15M, 1.2G\n"
            "      --json             one JSON object per URL: name (or name_bytes, see\n"
            "                         'qvfs help ls'), url, and where known size, used,\n"
            "                         available and free (bytes; free includes what only\n"
            "                         the administrator may use)\n");
    if (c == "watch")
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs watch [OPTION]... URL...\n"
            "Lists each folder, then prints its changes as they happen, one line each:\n"
            "\"listed PATH\" for what the folder holds, \"ready FOLDER\" once it is listed,\n"
            "then \"added PATH\", \"removed PATH\", \"changed PATH\" (size, time,\n"
            "permissions), \"renamed PATH -> PATH\", \"moved FOLDER -> URL\" (the folder\n"
            "itself was renamed) and \"gone FOLDER\" (it was deleted). Runs until every\n"
            "folder is gone, or until interrupted.\n"
            "\n"
            "Local folders are watched by the system (inotify); a burst of changes comes\n"
            "as one batch, and a lost event queue is listed again, printing only what\n"
            "differs. Where no watch is possible, \"ready\" says how the folder is kept:\n"
            "\"polling-at-limit\" (no system watch left), or \"none\" (a protocol that\n"
            "cannot watch: then --poll).\n"
            "\n"
            "  -a, --all         show names starting with '.' too\n"
            "  -c, --changes     print the changes only, not what the folder holds\n"
            "      --poll=MS     read folders that cannot be watched every MS milliseconds\n"
            "                    and print what changed (at least 100)\n"
            "      --json        JSON Lines: {\"event\": ..., \"folder\": URL, ...} with the\n"
            "                    keys of 'qvfs ls --json' for entries; \"from\" (or\n"
            "                    from_bytes) for renames, \"to\" for moves, \"mode\" for ready\n");
    if (c == "mount")
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs mount [OPTION]... URL DIR\n"
            "       qvfs mount [OPTION]... DIR\n"
            "Shows the files under URL at the folder DIR, for every program: a FUSE file\n"
            "system served by Qvfs's workers. Without a URL, DIR holds every URL:\n"
            "DIR/sftp/HOST/PATH, DIR/webdav/HOST:PORT/PATH, ... (USER@HOST names a user).\n"
            "The mount runs as its own process; it detaches once DIR is ready and says so.\n"
            "\n"
            "Files opened for writing are written to a private local copy and uploaded\n"
            "whole when they are closed (or flushed): until then the server keeps the old\n"
            "content, and an upload that fails is the error close() returns.\n"
            "\n"
            "  -f, --foreground        stay in the foreground (passwords are asked on the\n"
            "                          terminal; in the background they cannot be)\n"
            "      --cache-timeout=S   how long the kernel keeps names and attributes, in\n"
            "                          seconds (default 1; this mount's own changes are seen\n"
            "                          at once, other changes after at most S)\n"
            "      --allow-other       let other users in (root, or user_allow_other in\n"
            "                          /etc/fuse.conf)\n");
    if (c == "umount")
        return QCoreApplication::translate("qvfs",
            "Usage: qvfs umount DIR...\n"
            "Unmounts what 'qvfs mount' mounted at each DIR; the mount process ends. A\n"
            "mount where a program still has a file or folder open is refused. A mount\n"
            "whose process was killed is cleared.\n");
    return QString();
}

bool prepare(
    const char *command, const QList<QByteArray> &args, const QList<OptionSpec> &specs, Parsed *parsed, int *status)
{
    if (!parseArgs(command, args, specs, parsed)) {
        *status = Usage;
        return false;
    }
    if (parsed->has(OptHelp)) {
        out(helpText(command).toLocal8Bit());
        flushOut();
        *status = Ok;
        return false;
    }
    switch (parsed->last({ OptYes, OptNo })) {
    case OptYes:
        ctx().answers = Answers::Yes;
        break;
    case OptNo:
        ctx().answers = Answers::No;
        break;
    default:
        break;
    }
    return true;
}

} // namespace Cli

int main(int argc, char **argv)
{
    // First of all: no descriptor we open may become standard input, output or error.
    bool stdinClosed = false;
    bool stdoutClosed = false;
    if (!occupyClosedStandardDescriptors(&stdinClosed, &stdoutClosed))
        return Failed; // nowhere to say it, and nothing done

    // The arguments as the bytes they are: a file name need not be UTF-8.
    QList<QByteArray> args;
    args.reserve(argc);
    for (int i = 1; i < argc; ++i)
        args.append(QByteArray(argv[i]));
    const QByteArray prestartOperand(qvfs_prestart_operand(argc, argv));
    hideUrlPasswords(argc, argv);

    QCoreApplication app(argc, argv);
    Context &c = ctx();
    c.stdinClosed = stdinClosed;
    c.stdoutClosed = stdoutClosed;
    c.cwd = currentDirectory();

    // Global options, then the command.
    qsizetype first = 0;
    bool wantHelp = false;
    bool wantVersion = false;
    QByteArray badOption;
    for (; first < args.size() && args.at(first).startsWith('-'); ++first) {
        const QByteArray &a = args.at(first);
        if (a == "--help" || a == "-h")
            wantHelp = true;
        else if (a == "--version" || a == "-V")
            wantVersion = true;
        else if (a == "--yes")
            c.answers = Answers::Yes;
        else if (a == "--no")
            c.answers = Answers::No;
        else if (badOption.isEmpty())
            badOption = a;
    }
    const QByteArray name = first < args.size() ? args.at(first) : QByteArray();
    const QList<QByteArray> rest = args.mid(first + 1);
    const Command *command = findCommand(name);

    // Start the worker now: it gets ready while we do the rest (or adopt the one the
    // launcher started before we loaded Qt).
    if (!prestartOperand.isNull())
        Qvfs::prestartWorker(Qvfs::Url::fromUserInput(prestartOperand, c.cwd));

    c.stdinTty = ::isatty(STDIN_FILENO);
    c.stdoutTty = ::isatty(STDOUT_FILENO);
    c.stderrTty = ::isatty(STDERR_FILENO);
    const QString catalog = Qvfs::Internal::installTranslations();
    if (!catalog.isEmpty())
        qCDebug(QVFS_CLI) << "translations from" << catalog;
    installSignalHandlers();

    if (!badOption.isEmpty())
        return usageError(nullptr, QCoreApplication::translate("qvfs", "unknown option %1").arg(nameArg(badOption)));
    if (wantVersion) {
        out("qvfs " QVFS_VERSION_STRING "\n");
        flushOut();
        return Ok;
    }
    if (wantHelp || name == "help") {
        const QByteArray topic = (name == "help") ? rest.value(0) : QByteArray();
        if (!topic.isEmpty() && !findCommand(topic))
            return usageError(nullptr, QCoreApplication::translate("qvfs", "unknown command %1").arg(nameArg(topic)));
        out(helpText(topic.isEmpty() ? nullptr : topic.constData()).toLocal8Bit());
        flushOut();
        return Ok;
    }
    if (name.isEmpty())
        return usageError(nullptr, QCoreApplication::translate("qvfs", "missing command"));
    if (!command)
        return usageError(nullptr, QCoreApplication::translate("qvfs", "unknown command %1").arg(nameArg(name)));

    const int status = command->run(rest);
    flushOut();
    return status;
}
