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

/*!
 * One entry to show. A listing of a million entries keeps a million of these, so they
 * stay small: the entry itself stays in the library's batches (an EntryList costs
 * nothing per entry) and is found by its index; the name is a view into the batch (or
 * into the operand as given) for sorting.
 */
struct Item
{
    const char *name;
    qint32 nameSize;
    quint32 index; //!< of the entry in the listing's EntryList (and its URL, for operands)
    QByteArrayView nameView() const { return QByteArrayView(name, nameSize); }
};
static_assert(sizeof(Item) == 16, "an Item per entry of a listing: keep it small");

Item makeItem(QByteArrayView name, qsizetype index)
{
    return Item { name.data(), qint32(name.size()), quint32(index) };
}

void sortByName(QList<Item> &items)
{
    std::sort(
        items.begin(), items.end(), [](const Item &a, const Item &b) { return lessBytes(a.nameView(), b.nameView()); });
}

/*! The entries of one listing (or the file operands) and the items to show of them. */
struct Listing
{
    Qvfs::EntryList entries;
    QList<QUrl> urls; //!< operands only: the URL of each entry
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

int digits(qint64 n)
{
    int d = n < 0 ? 2 : 1;
    for (quint64 v = n < 0 ? quint64(0) - quint64(n) : quint64(n); v >= 10; v /= 10)
        ++d;
    return d;
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
        quote = isTerminal(Sink::Stdout) && !json;
        columns = ctx().stdoutTty && !longFormat && !json && !onePerLine;
        now = qint64(::time(nullptr));
        width = columns ? terminalWidth(1) : 80;
    }

    Qvfs::Details details() const
    {
        return (json || longFormat) ? Qvfs::DetailsFull : Qvfs::Details(Qvfs::DetailBasic);
    }

    /*!
     * Prints \a items of \a listing (sorted here). \a folder: the listed folder, for JSON
     * URLs; \a total: `ls -l`'s "total".
     */
    void print(const Listing &listing, QList<Item> &items, const QUrl &folder, bool total);
    /*! Lists the folder operand \a arg at \a url. */
    bool listFolder(const QByteArray &arg, const QUrl &url);
    void header(QByteArrayView name);

    bool printedSomething = false;

private:
    void printRecursive(const Listing &listing, QHash<QByteArrayView, QList<Item>> &byParent, QByteArrayView path,
        const QByteArray &shownPath, const QUrl &root);
    void printLong(const Listing &listing, const QList<Item> &items, bool aligned, bool total);
    void printColumns(const QList<Item> &items, bool aligned);
    /*! Appends \a name as shown (quoted on a terminal; a space before a plain name when \a aligned). */
    void appendName(QByteArray &line, QByteArrayView name, bool aligned) const;
    /*! The columns appendName() takes. */
    int nameWidth(QByteArrayView name, bool aligned) const;

    bool quote = false;
    bool columns = false;
    qint64 now = 0;
    int width = 80;
};

void Lister::header(QByteArrayView name)
{
    if (printedSomething)
        out("\n");
    out(shownName(name, Sink::Stdout));
    out(":\n");
    printedSomething = true;
}

void Lister::appendName(QByteArray &line, QByteArrayView name, bool aligned) const
{
    if (quote && needsShellEscape(name)) {
        line += shellEscape(name);
        return;
    }
    if (aligned)
        line += ' '; // coreutils aligns plain names with quoted ones
    line.append(name.data(), name.size());
}

int Lister::nameWidth(QByteArrayView name, bool aligned) const
{
    if (quote && needsShellEscape(name))
        return displayWidth(shellEscape(name));
    return displayWidth(name) + (aligned ? 1 : 0);
}

void Lister::print(const Listing &listing, QList<Item> &items, const QUrl &folder, bool total)
{
    sortByName(items);
    const bool operands = !listing.urls.isEmpty();
    if (json) {
        for (const Item &item : std::as_const(items)) {
            // Entries of a listing: their name in the folder; operands: the argument as given.
            const Qvfs::Entry e = listing.entries.at(item.index);
            const QByteArrayView name = operands ? item.nameView() : e.name();
            const QUrl url = operands ? listing.urls.at(item.index) : Qvfs::Url::child(folder, name);
            out(entryJson(e, name, url));
            out("\n");
        }
        return;
    }
    printedSomething = true;
    bool aligned = false;
    if (quote) {
        for (const Item &item : std::as_const(items)) {
            if (needsShellEscape(item.nameView())) {
                aligned = true;
                break;
            }
        }
    }
    if (longFormat) {
        printLong(listing, items, aligned, total);
    } else if (columns) {
        printColumns(items, aligned);
    } else {
        QByteArray line;
        for (const Item &item : std::as_const(items)) {
            line.clear();
            appendName(line, item.nameView(), aligned);
            line += '\n';
            out(line);
        }
    }
}

void Lister::printLong(const Listing &listing, const QList<Item> &items, bool aligned, bool total)
{
    using namespace Qvfs;
    // Two passes over the entries: the widths of the columns, then the lines. Nothing is
    // kept per entry in between.
    auto ownerWidth = [this](const Entry &e, Field name, Field id) {
        if (e.contains(name))
            return quote && needsShellEscape(e.bytes(name)) ? displayWidth(shellEscape(e.bytes(name)))
                                                            : displayWidth(e.bytes(name));
        return e.contains(id) ? digits(e.number(id)) : 1;
    };
    int wLinks = 0, wUser = 0, wGroup = 0, wSize = 0;
    qint64 blocks = 0;
    bool haveBlocks = false;
    for (const Item &item : items) {
        const Entry e = listing.entries.at(item.index);
        wLinks = qMax(wLinks, e.contains(NLink) ? digits(e.number(NLink)) : 1);
        wUser = qMax(wUser, ownerWidth(e, User, Uid));
        wGroup = qMax(wGroup, ownerWidth(e, Group, Gid));
        wSize = qMax(wSize, e.contains(Size) ? digits(e.size()) : 1);
        if (e.contains(Blocks)) {
            blocks += e.number(Blocks);
            haveBlocks = true;
        }
    }
    if (total) {
        out(QCoreApplication::translate("qvfs", "total %1").arg(haveBlocks ? (blocks + 1) / 2 : 0).toLocal8Bit());
        out("\n");
    }
    QByteArray line;
    auto number = [&line](const Entry &e, Field field, int w) {
        const int d = e.contains(field) ? digits(e.number(field)) : 1;
        line.append(qMax(0, w - d), ' ');
        if (e.contains(field))
            line += QByteArray::number(e.number(field));
        else
            line += '?';
    };
    auto owner = [&line, this](const Entry &e, Field name, Field id, int w) {
        const qsizetype before = line.size();
        if (e.contains(name))
            appendName(line, e.bytes(name), false);
        else if (e.contains(id))
            line += QByteArray::number(e.number(id));
        else
            line += '?';
        line.append(qMax(0, w - displayWidth(QByteArrayView(line).sliced(before))), ' ');
    };
    for (const Item &item : items) {
        const Entry e = listing.entries.at(item.index);
        line = modeString(e.type(), e.contains(Mode) ? e.number(Mode) : -1);
        line += ' ';
        number(e, NLink, wLinks);
        line += ' ';
        owner(e, User, Uid, wUser);
        line += ' ';
        owner(e, Group, Gid, wGroup);
        line += ' ';
        number(e, Size, wSize);
        line += ' ';
        line += e.contains(MTime) ? lsDate(e.number(MTime), now) : QByteArray("           ?");
        line += ' ';
        appendName(line, item.nameView(), aligned);
        if (e.isLink() && e.contains(LinkTarget)) {
            line += " -> ";
            appendName(line, e.bytes(LinkTarget), false);
        }
        line += '\n';
        out(line);
    }
}

void Lister::printColumns(const QList<Item> &items, bool aligned)
{
    const qsizetype n = items.size();
    if (n == 0)
        return;
    QList<int> widths;
    widths.reserve(n);
    for (const Item &item : items)
        widths.append(nameWidth(item.nameView(), aligned));
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
            appendName(line, items.at(k).nameView(), aligned);
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
    Listing listing;
    QList<Item> items;
    if (!recursive) {
        Qvfs::ListJob *job = Qvfs::listDir(url, details());
        prepareJob(job);
        QObject::connect(
            job, &Qvfs::ListJob::entries, job, [&listing, &items, this](Qvfs::ListJob *, const Qvfs::EntryList &list) {
                qsizetype index = listing.entries.size();
                listing.entries.append(list);
                for (const Qvfs::Entry &e : list) {
                    const QByteArrayView name = e.name();
                    if (all || !name.startsWith('.'))
                        items.append(makeItem(name, index));
                    ++index;
                }
            });
        if (!job->exec()) {
            jobError(job);
            return false;
        }
        if (printDirNames && !json)
            header(arg);
        print(listing, items, url, true);
        return true;
    }
    Qvfs::ListJob *job = Qvfs::listRecursive(url, details());
    prepareJob(job);
    QObject::connect(job, &Qvfs::ListJob::entries, job,
        [&listing](Qvfs::ListJob *, const Qvfs::EntryList &list) { listing.entries.append(list); });
    if (!job->exec()) {
        jobError(job);
        return false;
    }
    QHash<QByteArrayView, QList<Item>> byParent;
    qsizetype index = 0;
    for (const Qvfs::Entry &e : std::as_const(listing.entries)) {
        const QByteArrayView path = e.name();
        if (all || !isHiddenPath(path)) {
            const qsizetype slash = path.lastIndexOf('/');
            const QByteArrayView parent = slash < 0 ? QByteArrayView("") : path.first(slash);
            byParent[parent].append(makeItem(path.sliced(slash + 1), index));
        }
        ++index;
    }
    printRecursive(listing, byParent, QByteArrayView(""), arg, url);
    return true;
}

void Lister::printRecursive(const Listing &listing, QHash<QByteArrayView, QList<Item>> &byParent, QByteArrayView path,
    const QByteArray &shownPath, const QUrl &root)
{
    QList<Item> items = byParent.take(path);
    if (json) {
        // JSON names are paths below the listed folder.
        sortByName(items);
        for (const Item &item : std::as_const(items)) {
            const Qvfs::Entry e = listing.entries.at(item.index);
            out(entryJson(e, e.name(), Qvfs::Url::child(root, e.name())));
            out("\n");
        }
    } else {
        header(shownPath);
        print(listing, items, root, true);
    }
    for (const Item &item : std::as_const(items)) {
        const Qvfs::Entry e = listing.entries.at(item.index);
        if (!e.isDir())
            continue;
        QByteArray childShown = shownPath;
        if (!childShown.endsWith('/'))
            childShown += '/';
        childShown += item.nameView();
        printRecursive(listing, byParent, e.name(), childShown, root);
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
        prepareJob(job);
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
        Listing listing;
        QList<Item> items;
        for (const Operand &o : std::as_const(files)) {
            items.append(makeItem(o.arg, listing.entries.size()));
            listing.entries.append(o.entry);
            listing.urls.append(o.url);
        }
        l.print(listing, items, QUrl(), false);
    }
    for (const Operand &o : std::as_const(folders)) {
        if (!l.listFolder(o.arg, o.url))
            continue;
    }
    flushOut();
    return ctx().status;
}

} // namespace Cli
