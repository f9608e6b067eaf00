// SPDX-License-Identifier: LGPL-2.1-or-later
// Shared pieces of the `qvfs` command-line client: the run's state, output helpers and
// the argument parser.
#ifndef QVFS_CLI_H
#define QVFS_CLI_H

#include "conflict.h"
#include "rawpath_p.h"
#include "url_p.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <initializer_list>

namespace Qvfs
{
class Job;
}

namespace Cli
{

/*! Exit statuses. */
enum Status { Ok = 0, Failed = 1, Usage = 2 };

/*! How worker questions are answered (--yes, --no, or the terminal). */
enum class Answers { Terminal, Yes, No };

/*! The state of one run. */
struct Context
{
    QByteArray cwd; //!< raw bytes of the working folder (empty when unknown)
    bool stdinClosed = false; //!< fd 0 was closed when the program started (now /dev/null)
    bool stdoutClosed = false; //!< fd 1 was closed when the program started (now /dev/null)
    bool stdinTty = false;
    bool stdoutTty = false;
    bool stderrTty = false;
    Answers answers = Answers::Terminal;
    int status = Ok;
};
Context &ctx();

/*! Marks the run as failed (exit status 1). */
inline void setFailed()
{
    if (ctx().status == Ok)
        ctx().status = Failed;
}

// ---- output ----

/*! Appends \a bytes to the buffered standard output. */
void out(QByteArrayView bytes);
/*! Writes the buffered standard output. */
void flushOut();
/*! Writes \a bytes to standard output now, all of them (blocking); false on error. */
bool writeStdout(QByteArrayView bytes);
/*! Writes "qvfs: <message>" and a newline to standard error (after flushing stdout). */
void error(const QString &message);
/*!
 * Readies \a job for the terminal: questions go to TerminalAsk, and every entry of a tree
 * the job had to leave out is reported as an error line (the job goes on; the command
 * exits 1, as `cp -r` does).
 */
void prepareJob(Qvfs::Job *job);
/*! Reports the failed \a job's error and marks the run failed. */
void jobError(const Qvfs::Job *job);
/*!
 * Reports the library error \a code with \a args (URLs fully encoded, as a job's
 * errorArgs()) and marks the run failed. On a terminal the names in it are quoted.
 */
void reportError(int code, const QStringList &args);
/*! Writes \a text to standard error as is. */
void writeStderr(QByteArrayView text);

// ---- names on a terminal ----

/*! Where a text goes; names in it are quoted when that is a terminal. */
enum class Sink {
    Stdout, //!< standard output
    Stderr, //!< standard error (messages)
    Terminal, //!< the terminal itself (/dev/tty: prompts)
};

/*! How a name is shown. */
enum class NameStyle {
    Plain, //!< a name as ls shows it: quoted on a terminal only when it needs it
    Quoted, //!< a name in a message: always in quotes ('x'; raw inside them off a terminal)
    Text, //!< free text from a peer (a host, a realm): quoted on a terminal only when it holds control characters
};

/*!
 * The one way the client shows a file name, path or URL text (raw bytes) that goes to
 * \a sink. On a terminal it is quoted as coreutils `ls` does (shell-escape: 'a'$'\n''b'),
 * so a name can never move the cursor, set the title or clear the screen; elsewhere it
 * is the exact bytes (in single quotes for NameStyle::Quoted).
 */
QByteArray shownName(QByteArrayView name, Sink sink, NameStyle style = NameStyle::Plain);
/*! shownName() as text for a translated message. */
QString nameArg(QByteArrayView name, Sink sink = Sink::Stderr, NameStyle style = NameStyle::Quoted);
/*! \a url for people (a path for local files), through shownName(). */
QString urlArg(const QUrl &url, Sink sink = Sink::Stderr, NameStyle style = NameStyle::Plain);
/*! Whether \a sink is a terminal. */
bool isTerminal(Sink sink);

// ---- URLs ----

/*!
 * The URL for the command-line argument \a arg; reports an error when it is not valid.
 * "file://HOST/path" naming this machine (as `ls --hyperlink` writes them) is the
 * local path; another host is an error.
 */
QUrl toUrl(const QByteArray &arg);
/*!
 * The operand \a arg to echo in output (du, df): as given, but \a url (its URL) without
 * the password when it carries one: a password is never printed.
 */
QByteArray operandShown(const QByteArray &arg, const QUrl &url);
// The client's own checks compare paths as the worker will act on them: decoded to raw
// bytes (decodedPath()), resolved lexically (cleanAbsolutePath()), never encoded.
using Qvfs::Internal::isSameOrBelow;
using Qvfs::Url::Detail::cleanAbsolutePath;
using Qvfs::Url::Detail::decodedPath;
/*! The last segment of \a path, trailing slashes ignored ("" for "/"). */
QByteArray lastSegment(QByteArrayView path);
/*! Whether \a a and \a b are on the same host (scheme, user, host, port): paths comparable. */
bool sameLocation(const QUrl &a, const QUrl &b);

// ---- arguments ----

/*! One option a command accepts. */
struct OptionSpec
{
    int id; //!< what Parsed reports
    char shortName; //!< 0: none
    const char *longName; //!< nullptr: none
    bool takesValue = false;
};

/*! A parsed command line. */
struct Parsed
{
    QList<int> flags; //!< option ids in the order given
    QList<QByteArray> values; //!< the value of each entry of flags (empty when none)
    QList<QByteArray> operands;
    bool has(int id) const { return flags.contains(id); }
    QByteArray value(int id) const
    {
        const qsizetype i = flags.lastIndexOf(id);
        return i < 0 ? QByteArray() : values.at(i);
    }
    /*! Of \a ids, the one given last (-1 when none). */
    int last(std::initializer_list<int> ids) const
    {
        for (qsizetype i = flags.size() - 1; i >= 0; --i) {
            for (int id : ids) {
                if (flags.at(i) == id)
                    return id;
            }
        }
        return -1;
    }
};

/*!
 * The conflict policy the options \a force (-f), \a noClobber (-n) and \a rename
 * (--rename) of \a parsed give, the last one winning; without them --yes overwrites, --no
 * skips, a terminal asks, and anything else fails on an existing destination.
 */
Qvfs::ConflictPolicy conflictPolicy(const Parsed &parsed, int force, int noClobber, int rename);

/*! Options every command takes. */
enum CommonOption { OptHelp = 1000, OptYes, OptNo };

/*!
 * Parses \a args (after the command name) with \a specs plus the common options.
 * Options and operands may be mixed (GNU style); "--" ends the options; short options
 * combine ("-la"). On error prints the message and returns false.
 */
bool parseArgs(const char *command, const QList<QByteArray> &args, const QList<OptionSpec> &specs, Parsed *parsed);

/*! Reports a usage error for \a command and returns Usage. */
int usageError(const char *command, const QString &message);

// ---- interrupt ----

/*! Installs the SIGINT/SIGTERM handler (leaves the terminal tidy, then dies by the signal). */
void installSignalHandlers();
/*! Tells the signal handler whether a progress line is on the terminal. */
void setProgressLineVisible(bool visible);
/*! Tells the signal handler which terminal settings to restore (password prompts); -1: none. */
void setTerminalToRestore(int fd, const void *termiosState);

} // namespace Cli

#endif
