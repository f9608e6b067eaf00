// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs ls: folder listings like coreutils `ls`, or JSON Lines.
#include "commands.h"
#include "format.h"
#include "terminalask.h"

#include <Qvfs/ListJob>
#include <Qvfs/StatJob>
#include <Qvfs/Url>

#include <QCoreApplication>
#include <QHash>

#include <algorithm>
#include <cstring>
#include <ctime>

namespace Cli
{

namespace
{

enum LsOption { OptLong = 1, OptAll, OptAlmostAll, OptRecursive, OptJson, OptDirectory, OptOnePerLine };

bool lessBytes(QByteArrayView a, QByteArrayView b)
{
    const qsizetype n = qMin(a.size(), b.size());
    const int c = n ? std::memcmp(a.data(), b.data(), size_t(n)) : 0;
    return c < 0 || (c == 0 && a.size() < b.size());
}

struct Item
{
    Qvfs::Entry entry;
    QByteArrayView name; //!< as shown (a base name, or an operand as given)
    QUrl url; //!< for operands: their URL (listings build it from the folder's)
};

bool isHiddenPath(QByteArrayView path)
{
    if (path.startsWith('.'))
        return true;
    for (qsizetype i = 0; i + 1 < path.size(); ++i) {
        if (path.at(i) == '/' && path.at(i + 1) == '.')
            return true;
    }
    return false;
}

class Lister
{
public:
    bool longFormat = false;
    bool all = false;
    bool recursive = false;
    bool json = false;
    bool directoriesAsFiles = false;
    bool onePerLine = false;
    bool printDirNames = false;

    void init()
    {
        quote = ctx().stdoutTty && !json;
        columns = ctx().stdoutTty && !longFormat && !json && !onePerLine;
        now = qint64(::time(nullptr));
        width = columns ? terminalWidth(1) : 80;
    }

    Qvfs::Details details() const
    {
        return (json || longFormat) ? Qvfs::DetailsFull : Qvfs::Details(Qvfs::DetailBasic);
    }

    /*! Prints \a items (sorted here). \a folder: the listed folder, for JSON URLs; \a total: `ls -l`'s "total". */
    void print(QList<Item> &items, const QUrl &folder, bool total);
    /*! Lists the folder operand \a arg at \a url. */
    bool listFolder(const QByteArray &arg, const QUrl &url);
    void header(QByteArrayView name);

    bool printedSomething = false;

private:
    void printRecursive(QHash<QByteArrayView, QList<Item>> &byParent, QByteArrayView path, const QByteArray &shownPath,
        const QUrl &root);
    void printLong(const QList<Item> &items, const QList<QByteArray> &names, bool total);
    void printColumns(const QList<QByteArray> &names);

    bool quote = false;
    bool columns = false;
    qint64 now = 0;
    int width = 80;
};

void Lister::header(QByteArrayView name)
{
    if (printedSomething)
        out("\n");
    out(displayName(name, quote));
    out(":\n");
    printedSomething = true;
}

void Lister::print(QList<Item> &items, const QUrl &folder, bool total)
{
    std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) { return lessBytes(a.name, b.name); });
    if (json) {
        for (const Item &item : std::as_const(items)) {
            // Entries of a listing: their name in the folder; operands: the argument as given.
            const QByteArrayView name = item.url.isEmpty() ? item.entry.name() : item.name;
            const QUrl url = item.url.isEmpty() ? Qvfs::Url::child(folder, name) : item.url;
            out(entryJson(item.entry, name, url));
            out("\n");
        }
        return;
    }
    printedSomething = true;
    QList<QByteArray> names;
    names.reserve(items.size());
    bool anyQuoted = false;
    for (const Item &item : std::as_const(items)) {
        names.append(displayName(item.name, quote));
        const QByteArray &n = names.constLast();
        if (quote && (n.startsWith('\'') || n.startsWith('"')))
            anyQuoted = true;
    }
    if (anyQuoted) {
        // coreutils aligns plain names with quoted ones.
        for (QByteArray &n : names) {
            if (!n.startsWith('\'') && !n.startsWith('"'))
                n.prepend(' ');
        }
    }
    if (longFormat) {
        printLong(items, names, total);
    } else if (columns) {
        printColumns(names);
    } else {
        for (const QByteArray &n : std::as_const(names)) {
            out(n);
            out("\n");
        }
    }
}

void Lister::printLong(const QList<Item> &items, const QList<QByteArray> &names, bool total)
{
    using namespace Qvfs;
    struct Row
    {
        QByteArray links, user, group, size;
    };
    QList<Row> rows;
    rows.reserve(items.size());
    int wLinks = 0, wUser = 0, wGroup = 0, wSize = 0;
    qint64 blocks = 0;
    bool haveBlocks = false;
    for (const Item &item : items) {
        const Entry &e = item.entry;
        Row r;
        r.links = e.contains(NLink) ? QByteArray::number(e.number(NLink)) : QByteArray("?");
        r.user = e.contains(User) ? e.bytes(User).toByteArray()
                                  : (e.contains(Uid) ? QByteArray::number(e.number(Uid)) : QByteArray("?"));
        r.group = e.contains(Group) ? e.bytes(Group).toByteArray()
                                    : (e.contains(Gid) ? QByteArray::number(e.number(Gid)) : QByteArray("?"));
        r.size = e.contains(Size) ? QByteArray::number(e.size()) : QByteArray("?");
        wLinks = qMax(wLinks, int(r.links.size()));
        wUser = qMax(wUser, displayWidth(r.user));
        wGroup = qMax(wGroup, displayWidth(r.group));
        wSize = qMax(wSize, int(r.size.size()));
        if (e.contains(Blocks)) {
            blocks += e.number(Blocks);
            haveBlocks = true;
        }
        rows.append(r);
    }
    if (total) {
        out(QCoreApplication::translate("qvfs", "total %1").arg(haveBlocks ? (blocks + 1) / 2 : 0).toLocal8Bit());
        out("\n");
    }
    auto padLeft
        = [](const QByteArray &s, int w) -> QByteArray { return QByteArray(qMax(0, w - int(s.size())), ' ') + s; };
    auto padRight
        = [](const QByteArray &s, int w) -> QByteArray { return s + QByteArray(qMax(0, w - displayWidth(s)), ' '); };
    QByteArray line;
    for (qsizetype i = 0; i < items.size(); ++i) {
        const Entry &e = items.at(i).entry;
        const Row &r = rows.at(i);
        line = modeString(e.type(), e.contains(Mode) ? e.number(Mode) : -1);
        line += ' ';
        line += padLeft(r.links, wLinks);
        line += ' ';
        line += padRight(r.user, wUser);
        line += ' ';
        line += padRight(r.group, wGroup);
        line += ' ';
        line += padLeft(r.size, wSize);
        line += ' ';
        line += e.contains(MTime) ? lsDate(e.number(MTime), now) : QByteArray("           ?");
        line += ' ';
        line += names.at(i);
        if (e.isLink() && e.contains(LinkTarget)) {
            line += " -> ";
            line += displayName(e.bytes(LinkTarget), quote);
        }
        line += '\n';
        out(line);
    }
}

void Lister::printColumns(const QList<QByteArray> &names)
{
    const qsizetype n = names.size();
    if (n == 0)
        return;
    QList<int> widths;
    widths.reserve(n);
    for (const QByteArray &name : names)
        widths.append(displayWidth(name));
    // The most columns that fit, filled top to bottom (ls -C).
    qsizetype rows = n;
    QList<int> colWidths { *std::max_element(widths.cbegin(), widths.cend()) };
    const qsizetype maxCols = qMax<qsizetype>(1, qMin<qsizetype>(n, width / 3));
    for (qsizetype cols = maxCols; cols > 1; --cols) {
        const qsizetype r = (n + cols - 1) / cols;
        const qsizetype used = (n + r - 1) / r;
        QList<int> cw(used, 0);
        int lineWidth = 0;
        for (qsizetype c = 0; c < used; ++c) {
            for (qsizetype k = c * r; k < qMin(n, (c + 1) * r); ++k)
                cw[c] = qMax(cw[c], widths.at(k));
            lineWidth += cw[c] + (c + 1 < used ? 2 : 0);
        }
        if (lineWidth < width) {
            rows = r;
            colWidths = cw;
            break;
        }
    }
    QByteArray line;
    for (qsizetype r = 0; r < rows; ++r) {
        line.clear();
        for (qsizetype c = 0; c < colWidths.size(); ++c) {
            const qsizetype k = c * rows + r;
            if (k >= n)
                break;
            line += names.at(k);
            const bool lastInRow = c + 1 >= colWidths.size() || (c + 1) * rows + r >= n;
            if (!lastInRow)
                line += QByteArray(colWidths.at(c) - widths.at(k) + 2, ' ');
        }
        line += '\n';
        out(line);
    }
}

bool Lister::listFolder(const QByteArray &arg, const QUrl &url)
{
    if (!recursive) {
        Qvfs::ListJob *job = Qvfs::listDir(url, details());
        job->setAskDelegate(TerminalAsk::instance());
        QList<Item> items;
        QObject::connect(
            job, &Qvfs::ListJob::entries, job, [&items, this](Qvfs::ListJob *, const Qvfs::EntryList &list) {
                for (const Qvfs::Entry &e : list) {
                    const QByteArrayView name = e.name();
                    if (!all && name.startsWith('.'))
                        continue;
                    items.append(Item { e, name, QUrl() });
                }
            });
        if (!job->exec()) {
            jobError(job);
            return false;
        }
        if (printDirNames && !json)
            header(arg);
        print(items, url, true);
        return true;
    }
    Qvfs::ListJob *job = Qvfs::listRecursive(url, details());
    job->setAskDelegate(TerminalAsk::instance());
    Qvfs::EntryList entries;
    QObject::connect(job, &Qvfs::ListJob::entries, job,
        [&entries](Qvfs::ListJob *, const Qvfs::EntryList &list) { entries.append(list); });
    if (!job->exec()) {
        jobError(job);
        return false;
    }
    QHash<QByteArrayView, QList<Item>> byParent;
    for (const Qvfs::Entry &e : std::as_const(entries)) {
        const QByteArrayView path = e.name();
        if (!all && isHiddenPath(path))
            continue;
        const qsizetype slash = path.lastIndexOf('/');
        const QByteArrayView parent = slash < 0 ? QByteArrayView("") : path.first(slash);
        byParent[parent].append(Item { e, path.sliced(slash + 1), QUrl() });
    }
    printRecursive(byParent, QByteArrayView(""), arg, url);
    return true;
}

void Lister::printRecursive(
    QHash<QByteArrayView, QList<Item>> &byParent, QByteArrayView path, const QByteArray &shownPath, const QUrl &root)
{
    QList<Item> items = byParent.take(path);
    if (!json)
        header(shownPath);
    if (json) {
        // JSON names are paths below the listed folder.
        std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) { return lessBytes(a.name, b.name); });
        for (const Item &item : std::as_const(items)) {
            out(entryJson(item.entry, item.entry.name(), Qvfs::Url::child(root, item.entry.name())));
            out("\n");
        }
    } else {
        print(items, root, true);
    }
    for (const Item &item : std::as_const(items)) {
        if (!item.entry.isDir())
            continue;
        const QByteArrayView childPath = item.entry.name();
        QByteArray childShown = shownPath;
        if (!childShown.endsWith('/'))
            childShown += '/';
        childShown += item.name;
        printRecursive(byParent, childPath, childShown, root);
    }
}

} // namespace

int cmdLs(const QList<QByteArray> &args)
{
    Parsed p;
    int status = Ok;
    if (!prepare("ls", args,
            { { OptLong, 'l', "long" }, { OptAll, 'a', "all" }, { OptAlmostAll, 'A', "almost-all" },
                { OptRecursive, 'R', "recursive" }, { OptJson, 0, "json" }, { OptDirectory, 'd', "directory" },
                { OptOnePerLine, '1', nullptr } },
            &p, &status))
        return status;
    Lister l;
    l.longFormat = p.has(OptLong);
    l.all = p.has(OptAll) || p.has(OptAlmostAll);
    l.recursive = p.has(OptRecursive);
    l.json = p.has(OptJson);
    l.directoriesAsFiles = p.has(OptDirectory);
    l.onePerLine = p.has(OptOnePerLine);
    l.init();
    QList<QByteArray> operands = p.operands;
    if (operands.isEmpty())
        operands.append(QByteArrayLiteral("."));
    l.printDirNames = operands.size() > 1 || l.recursive;

    // Stat every operand first, like ls: files are shown together, then each folder.
    struct Operand
    {
        QByteArray arg;
        QUrl url;
        Qvfs::Entry entry;
    };
    QList<Operand> files, folders;
    // `ls DIR`, `ls LINK-TO-DIR`: the folder's content; `ls -l LINK` and `ls -d`: the link itself.
    const bool follow = !l.longFormat && !l.directoriesAsFiles;
    for (const QByteArray &arg : std::as_const(operands)) {
        const QUrl url = toUrl(arg);
        if (!url.isValid())
            continue;
        Qvfs::StatJob *job = Qvfs::stat(url, l.details() | (follow ? Qvfs::DetailResolveSymlink : Qvfs::Detail(0)));
        job->setAskDelegate(TerminalAsk::instance());
        if (!job->exec()) {
            jobError(job);
            continue;
        }
        const Qvfs::Entry e = job->statResult();
        if (e.isDir() && !l.directoriesAsFiles)
            folders.append(Operand { arg, url, e });
        else
            files.append(Operand { arg, url, e });
    }
    auto byArg = [](const Operand &a, const Operand &b) { return lessBytes(a.arg, b.arg); };
    std::sort(files.begin(), files.end(), byArg);
    std::sort(folders.begin(), folders.end(), byArg);
    if (!files.isEmpty()) {
        QList<Item> items;
        for (const Operand &o : std::as_const(files))
            items.append(Item { o.entry, o.arg, o.url });
        l.print(items, QUrl(), false);
    }
    for (const Operand &o : std::as_const(folders)) {
        if (!l.listFolder(o.arg, o.url))
            continue;
    }
    flushOut();
    return ctx().status;
}

} // namespace Cli
