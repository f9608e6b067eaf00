// SPDX-License-Identifier: LGPL-2.1-or-later
// The trash (freedesktop.org Trash specification 1.0) through the real workers: trashing
// by the file worker, listing, reading, restoring and emptying by the trash:/ worker; the
// home trash and real second volumes (loop-mounted ext4 images, in a private mount
// namespace); the shared .Trash folder with and without its sticky bit; what another user
// of the volume may plant; names trashed twice and names that are not UTF-8; restores
// onto existing files and into deleted folders; and GLib's `gio trash` and trash-cli as
// the other programs that must understand what Qvfs trashes, and the other way round.
//
// The workers run as nobody (UnprivilegedWorkers) with a throwaway HOME and
// XDG_DATA_HOME: the only trashes they can see are this test's, never a real user's (a
// volume's .Trash-0 of the machine stays out of reach of uid 65534, and emptying is tried
// on nothing else).

#include "clirun.h"
#include "jobfixture.h"
#include "jobrunner.h"
#include "livefolders.h"
#include "loopvolume.h"
#include "rawfs.h"
#include "unprivilegedworkers.h"
#include "workerhold.h"

#include "answerer.h"

#include <Qvfs/DeleteJob>
#include <Qvfs/DirLister>
#include <Qvfs/Error>
#include <Qvfs/ListJob>
#include <Qvfs/TransferJob>
#include <Qvfs/TrashJob>
#include <Qvfs/Url>

#include <QDateTime>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qvfs;
using namespace QvfsTest;

namespace
{
const QUrl TrashRoot(QStringLiteral("trash:/"));
constexpr uid_t Nobody = uid_t(UnprivilegedWorkers::NobodyId);

/*! What a trash job did. */
struct Outcome
{
    int error = 0;
    QStringList args;
    QList<std::pair<QUrl, QUrl>> moved;
    QList<std::pair<QUrl, QUrl>> skipped;
    QList<QUrl> leftOut;
};

Outcome runTrashJob(TrashJob *job, AskDelegate *delegate = nullptr)
{
    Outcome o;
    QObject::connect(job, &TrashJob::moved, job, [&o](Job *, const QUrl &a, const QUrl &b) {
        o.moved.append({ a, b });
    });
    QObject::connect(job, &TrashJob::skipped, job, [&o](Job *, const QUrl &a, const QUrl &b) {
        o.skipped.append({ a, b });
    });
    QObject::connect(job, &Job::leftOut, job, [&o](Job *, const QUrl &u, int) { o.leftOut.append(u); });
    if (delegate)
        job->setAskDelegate(delegate);
    auto done = run(job);
    o.error = done->error();
    o.args = done->errorArgs();
    return o;
}

/*! The entries of trash:/ by name. */
QMap<QByteArray, Entry> trashEntries(int *error = nullptr)
{
    const Listing l = collect(listDir(TrashRoot));
    if (error)
        *error = l.error;
    return l.entries;
}

QUrl trashUrl(const QByteArray &name)
{
    return Url::child(TrashRoot, name);
}

/*! The entry of trash:/ whose OriginalPath is \a path (empty name: none). */
QByteArray nameFor(const QMap<QByteArray, Entry> &entries, const QByteArray &path)
{
    for (auto it = entries.cbegin(); it != entries.cend(); ++it) {
        if (it->bytes(OriginalPath) == path)
            return it.key();
    }
    return {};
}

/*! Hands \a path (and what is below, not following links) to nobody, as if nobody had made it. */
void giveToNobody(const QByteArray &path)
{
    if (::lchown(path.constData(), Nobody, Nobody) != 0)
        return;
    struct stat st = lstatRaw(path);
    if (S_ISDIR(st.st_mode)) {
        for (const QByteArray &n : namesIn(path))
            giveToNobody(join(path, n));
    }
}

/*! Runs \a program as nobody with this test's HOME and XDG_DATA_HOME, \a input on its standard input. */
CliRun::Result asNobody(
    const QString &program, const QStringList &args, const QByteArray &cwd, const QByteArray &input = {})
{
    QStringList full = { QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"),
        QStringLiteral("--clear-groups"), program };
    full += args;
    QProcessEnvironment env = CliRun::environment();
    env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8"));
    return CliRun::run(QStringLiteral("setpriv"), full, QString::fromLocal8Bit(cwd), input, env);
}

bool isDateTime(const QByteArray &s)
{
    static const QRegularExpression re(QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d$"));
    return re.match(QString::fromLatin1(s)).hasMatch();
}

/*! The value of \a key in the .trashinfo \a content. */
QByteArray infoValue(const QByteArray &content, const QByteArray &key)
{
    for (const QByteArray &line : content.split('\n')) {
        if (line.startsWith(QByteArray(key + '=')))
            return line.mid(key.size() + 1);
    }
    return {};
}

} // namespace

class TrashTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void trashAndRestoreHome();
    void sameNameTwice();
    void restoreConflicts();
    void restoreIntoDeletedParent();
    void errors();
    void secondVolume();
    void sharedTrashFolder_data();
    void sharedTrashFolder();
    void hostileVolume_data();
    void hostileVolume();
    void parentSwappedWhileHeld();
    void bigFolder();
    void emptyTrash();
    void interoperability();
    void watching();
    void commandLine();

private:
    QByteArray path(QByteArrayView rel) const { return m_fx.path(rel); }
    QUrl url(QByteArrayView rel) const { return m_fx.url(rel); }
    QByteArray homeTrash() const { return path("home/data/Trash"); }
    /*! A loop-mounted volume at "vol" whose top folder nobody may write (as a user's own disk). */
    bool mountVolume();

    JobFixture m_fx;
    std::unique_ptr<UnprivilegedWorkers> m_workers;
    std::unique_ptr<LoopVolume> m_volume;
    bool m_privateMounts = false;
};

void TrashTest::initTestCase()
{
    if (::geteuid() == 0) {
        QByteArray error;
        m_privateMounts = LoopVolume::enterPrivateMountNamespace(&error);
        QVERIFY2(m_privateMounts, error.constData());
    }
}

void TrashTest::init()
{
    m_fx.init();
    QVERIFY2(m_fx.isReachableByOthers(), m_fx.errorString().constData());
    QVERIFY(mkdirRaw(path("home"), 0700));
    QVERIFY(mkdirRaw(path("home/data"), 0700));
    QVERIFY(mkdirRaw(path("w")));
    giveToNobody(path("home"));
    giveToNobody(path("w"));
    qputenv("HOME", path("home"));
    qputenv("XDG_DATA_HOME", path("home/data"));
    m_workers = std::make_unique<UnprivilegedWorkers>();
}

void TrashTest::cleanup()
{
    m_workers.reset();
    m_volume.reset();
    m_fx.cleanup();
}

bool TrashTest::mountVolume()
{
    if (!m_privateMounts)
        return false;
    m_volume = std::make_unique<LoopVolume>(path("vol"), path("vol.img"));
    if (!m_volume->mounted()) {
        qWarning("%s", m_volume->errorString().constData());
        return false;
    }
    ::chmod(path("vol").constData(), 0755);
    if (::chown(path("vol").constData(), Nobody, Nobody) != 0)
        return false;
    return true;
}

void TrashTest::trashAndRestoreHome()
{
    // A file, a folder, a name that is no UTF-8 and one with characters a Path must escape.
    const QByteArray odd = "\xff\xfe name.bin";
    const QByteArray escaped = "x y%z#é";
    QVERIFY(writeRaw(path("w/a.txt"), "alpha"));
    QVERIFY(mkdirRaw(path("w/dir")));
    QVERIFY(writeRaw(path("w/dir/in"), "0123456789"));
    QVERIFY(writeRaw(join(path("w"), odd), "odd"));
    QVERIFY(writeRaw(join(path("w"), escaped), "esc"));
    giveToNobody(path("w"));
    const qint64 inode = qint64(lstatRaw(path("w/a.txt")).st_ino);
    const qint64 before = QDateTime::currentSecsSinceEpoch();

    const Outcome o = runTrashJob(
        trash({ url("w/a.txt"), url("w/dir"), fileUrl(join(path("w"), odd)), fileUrl(join(path("w"), escaped)) }));
    QCOMPARE(o.error, 0);
    QCOMPARE(o.moved.size(), 4);
    QCOMPARE(o.moved.at(0).second, trashUrl("0-a.txt"));
    QVERIFY(namesIn(path("w")).isEmpty());
    // A rename: the very file is in files/, its info complete beside it.
    QCOMPARE(qint64(lstatRaw(homeTrash() + "/files/a.txt").st_ino), inode);
    bool ok = false;
    const QByteArray info = readRaw(homeTrash() + "/info/a.txt.trashinfo", &ok);
    QVERIFY(ok);
    QVERIFY(info.startsWith("[Trash Info]\n"));
    QCOMPARE(infoValue(info, "Path"), path("w/a.txt"));
    QVERIFY2(isDateTime(infoValue(info, "DeletionDate")), info.constData());
    QCOMPARE(infoValue(readRaw(homeTrash() + "/info/" + odd + ".trashinfo"), "Path"), path("w") + "/%FF%FE%20name.bin");
    QCOMPARE(
        infoValue(readRaw(homeTrash() + "/info/" + escaped + ".trashinfo"), "Path"), path("w") + "/x%20y%25z%23%C3%A9");
    QCOMPARE(lstatRaw(homeTrash()).st_mode & 07777, mode_t(0700));

    // Listed with where each came from and when; a folder's size is its content's.
    const auto entries = trashEntries();
    QCOMPARE(entries.size(), 4);
    const Entry &a = entries.value("0-a.txt");
    QCOMPARE(a.bytes(OriginalPath), path("w/a.txt"));
    QCOMPARE(a.string(DisplayName), QStringLiteral("a.txt"));
    QCOMPARE(a.size(), 5);
    QVERIFY(a.number(DeletionTime) >= before - 1 && a.number(DeletionTime) <= QDateTime::currentSecsSinceEpoch() + 1);
    QCOMPARE(entries.value("0-" + odd).bytes(OriginalPath), join(path("w"), odd));
    QCOMPARE(entries.value("0-dir").size(), 10);
    QVERIFY(readRaw(homeTrash() + "/directorysizes").endsWith(" dir\n"));

    // Read from the trash, and inside a trashed folder.
    auto get = run(storedGet(trashUrl("0-a.txt")));
    QCOMPARE(get->error(), 0);
    QCOMPARE(get->data(), QByteArray("alpha"));
    QCOMPARE(collect(listDir(trashUrl("0-dir"))).entries.keys(), QList<QByteArray> { "in" });

    // Back where they were, byte for byte; the trash is empty again.
    const Outcome r = runTrashJob(
        restoreFromTrash({ trashUrl("0-a.txt"), trashUrl("0-dir"), trashUrl("0-" + odd), trashUrl("0-" + escaped) }));
    QCOMPARE(r.error, 0);
    QCOMPARE(r.moved.size(), 4);
    QCOMPARE(r.moved.at(0).second, url("w/a.txt"));
    QCOMPARE(readRaw(path("w/a.txt")), QByteArray("alpha"));
    QCOMPARE(readRaw(path("w/dir/in")), QByteArray("0123456789"));
    QCOMPARE(readRaw(join(path("w"), odd)), QByteArray("odd"));
    QCOMPARE(qint64(lstatRaw(path("w/a.txt")).st_ino), inode);
    QVERIFY(trashEntries().isEmpty());
    QVERIFY(namesIn(homeTrash() + "/info").isEmpty());
    QVERIFY(namesIn(homeTrash() + "/files").isEmpty());
    QVERIFY(!readRaw(homeTrash() + "/directorysizes").contains(" dir\n"));
}

void TrashTest::sameNameTwice()
{
    QVERIFY(writeRaw(path("w/a.txt"), "one"));
    QCOMPARE(runTrashJob(trash(url("w/a.txt"))).error, 0);
    QVERIFY(writeRaw(path("w/a.txt"), "two"));
    const Outcome o = runTrashJob(trash(url("w/a.txt")));
    QCOMPARE(o.error, 0);
    QCOMPARE(o.moved.value(0).second, trashUrl("0-a.2.txt")); // GLib's rule
    const auto entries = trashEntries();
    QCOMPARE(entries.size(), 2);
    QCOMPARE(entries.value("0-a.2.txt").bytes(OriginalPath), path("w/a.txt"));
    QCOMPARE(runTrashJob(restoreFromTrash({ trashUrl("0-a.2.txt") })).error, 0);
    QCOMPARE(readRaw(path("w/a.txt")), QByteArray("two"));
}

void TrashTest::restoreConflicts()
{
    QVERIFY(writeRaw(path("w/f"), "trashed"));
    QCOMPARE(runTrashJob(trash(url("w/f"))).error, 0);
    QVERIFY(writeRaw(path("w/f"), "new"));
    const QUrl entry = trashUrl("0-f");

    // Fail: nothing moves, the entry stays whole.
    Outcome o = runTrashJob(restoreFromTrash({ entry }));
    QCOMPARE(o.error, int(ErrAlreadyExists));
    QCOMPARE(readRaw(path("w/f")), QByteArray("new"));
    QVERIFY(trashEntries().contains("0-f"));
    // Skip: left in the trash, and said so.
    o = runTrashJob(restoreFromTrash({ entry }, ConflictPolicy::Skip));
    QCOMPARE(o.error, 0);
    QCOMPARE(o.skipped.size(), 1);
    QVERIFY(trashEntries().contains("0-f"));
    // Ask: the question names the trash entry and the file in the way; "skip" keeps both.
    Answerer skip;
    skip.action = "skip";
    o = runTrashJob(restoreFromTrash({ entry }, ConflictPolicy::Ask), &skip);
    QCOMPARE(o.error, 0);
    QCOMPARE(skip.questions.size(), 1);
    QCOMPARE(skip.questions.at(0).source, entry);
    QCOMPARE(skip.questions.at(0).destination, url("w/f"));
    QVERIFY(trashEntries().contains("0-f"));
    // Rename: a free name beside it.
    o = runTrashJob(restoreFromTrash({ entry }, ConflictPolicy::Rename));
    QCOMPARE(o.error, 0);
    QCOMPARE(o.moved.size(), 1);
    QVERIFY(o.moved.at(0).second != url("w/f"));
    QCOMPARE(readRaw(Url::localPath(o.moved.at(0).second)), QByteArray("trashed"));
    QCOMPARE(readRaw(path("w/f")), QByteArray("new"));
    // Overwrite: replaced.
    QVERIFY(writeRaw(path("w/g"), "trashed g"));
    QCOMPARE(runTrashJob(trash(url("w/g"))).error, 0);
    QVERIFY(writeRaw(path("w/g"), "new g"));
    QCOMPARE(runTrashJob(restoreFromTrash({ trashUrl("0-g") }, ConflictPolicy::Overwrite)).error, 0);
    QCOMPARE(readRaw(path("w/g")), QByteArray("trashed g"));
    QVERIFY(trashEntries().isEmpty());
}

void TrashTest::restoreIntoDeletedParent()
{
    QVERIFY(mkdirRaw(path("w/p")));
    QVERIFY(mkdirRaw(path("w/p/q")));
    QVERIFY(writeRaw(path("w/p/q/f.txt"), "deep"));
    giveToNobody(path("w/p"));
    QCOMPARE(runTrashJob(trash(url("w/p/q/f.txt"))).error, 0);
    removeTreeRaw(path("w/p"));
    QCOMPARE(runTrashJob(restoreFromTrash({ trashUrl("0-f.txt") })).error, 0);
    QCOMPARE(readRaw(path("w/p/q/f.txt")), QByteArray("deep"));
}

void TrashTest::errors()
{
    // A missing file, alone and among others (the others still go, the job says partial).
    Outcome o = runTrashJob(trash(url("w/missing")));
    QCOMPARE(o.error, int(ErrDoesNotExist));
    QVERIFY(writeRaw(path("w/here"), "x"));
    o = runTrashJob(trash({ url("w/missing"), url("w/here") }));
    QCOMPARE(o.error, int(ErrPartial));
    QCOMPARE(o.leftOut, QList<QUrl> { url("w/missing") });
    QCOMPARE(o.moved.size(), 1);
    // Not local, and the trash itself.
    QCOMPARE(runTrashJob(trash(QUrl(QStringLiteral("sftp://host/x")))).error, int(ErrUnsupportedAction));
    QCOMPARE(runTrashJob(trash(fileUrl(homeTrash()))).error, int(ErrCycle));
    QCOMPARE(runTrashJob(trash(fileUrl(homeTrash() + "/files/here"))).error, int(ErrCycle));
    // No such entry; a path that would climb out of one.
    QCOMPARE(runTrashJob(restoreFromTrash({ trashUrl("0-nothing") })).error, int(ErrDoesNotExist));
    auto get = run(storedGet(QUrl(QStringLiteral("trash:/0-here/%2E%2E/%2E%2E/info/here.trashinfo"))));
    QCOMPARE(get->error(), int(ErrMalformedUrl));
    // A .trashinfo from elsewhere whose Path climbs out is not restored through it.
    QVERIFY(writeRaw(homeTrash() + "/info/evil.trashinfo", "[Trash Info]\nPath=/tmp/../etc/evil\n"));
    QVERIFY(writeRaw(homeTrash() + "/files/evil", "e"));
    QCOMPARE(runTrashJob(restoreFromTrash({ trashUrl("0-evil") })).error, int(ErrMalformedUrl));
    QVERIFY(!existsRaw("/etc/evil"));
    // A permanent delete of one entry.
    auto del = run(Qvfs::del(trashUrl("0-here")));
    QCOMPARE(del->error(), 0);
    QVERIFY(!trashEntries().contains("0-here"));
    QVERIFY(!existsRaw(homeTrash() + "/files/here"));
}

void TrashTest::secondVolume()
{
    if (!mountVolume())
        QSKIP("needs root and loop devices");
    QVERIFY(writeBig(path("vol/big"), 8 * MiB));
    QVERIFY(mkdirRaw(path("vol/sub")));
    QVERIFY(writeRaw(path("vol/sub/s.txt"), "s"));
    giveToNobody(path("vol/big"));
    giveToNobody(path("vol/sub"));
    const struct stat big = lstatRaw(path("vol/big"));

    const Outcome o = runTrashJob(trash({ url("vol/big"), url("vol/sub/s.txt") }));
    QCOMPARE(o.error, 0);
    // The volume's own trash, by a rename: never copied home.
    const QByteArray trashDir = path("vol/.Trash-65534");
    QCOMPARE(lstatRaw(trashDir).st_uid, Nobody);
    QCOMPARE(lstatRaw(trashDir).st_mode & 07777, mode_t(0700));
    QCOMPARE(lstatRaw(trashDir + "/files/big").st_ino, big.st_ino);
    QVERIFY(namesIn(homeTrash() + "/files").isEmpty());
    // Paths relative to the volume's top folder, as the spec has them there.
    QCOMPARE(infoValue(readRaw(trashDir + "/info/big.trashinfo"), "Path"), QByteArray("big"));
    QCOMPARE(infoValue(readRaw(trashDir + "/info/s.txt.trashinfo"), "Path"), QByteArray("sub/s.txt"));
    const auto entries = trashEntries();
    const QByteArray name = nameFor(entries, path("vol/big"));
    QVERIFY(!name.isEmpty());
    QVERIFY(!name.startsWith("0-"));
    QCOMPARE(entries.value(name).size(), 8 * MiB);
    QCOMPARE(runTrashJob(restoreFromTrash({ trashUrl(name) })).error, 0);
    QCOMPARE(lstatRaw(path("vol/big")).st_ino, big.st_ino);
}

void TrashTest::sharedTrashFolder_data()
{
    QTest::addColumn<int>("mode"); // of $topdir/.Trash; 0: a symlink to a sticky folder
    QTest::addColumn<bool>("userFolderByOther"); // .Trash/65534 made beforehand by root
    QTest::addColumn<bool>("shared"); // .Trash/65534 used (else .Trash-65534)
    QTest::newRow("sticky") << 01777 << false << true;
    QTest::newRow("not sticky") << 0777 << false << false;
    QTest::newRow("link") << 0 << false << false;
    QTest::newRow("user folder of another") << 01777 << true << false;
}

void TrashTest::sharedTrashFolder()
{
    QFETCH(int, mode);
    QFETCH(bool, userFolderByOther);
    QFETCH(bool, shared);
    if (!mountVolume())
        QSKIP("needs root and loop devices");
    if (mode == 0) {
        QVERIFY(mkdirRaw(path("vol/elsewhere"), 01777));
        QCOMPARE(::chmod(path("vol/elsewhere").constData(), 01777), 0);
        QVERIFY(symlinkRaw("elsewhere", path("vol/.Trash")));
    } else {
        QVERIFY(mkdirRaw(path("vol/.Trash"), mode_t(mode)));
        QCOMPARE(::chmod(path("vol/.Trash").constData(), mode_t(mode)), 0);
    }
    if (userFolderByOther)
        QVERIFY(mkdirRaw(path("vol/.Trash/65534"), 0777));
    QVERIFY(writeRaw(path("vol/f"), "f"));
    QCOMPARE(runTrashJob(trash(url("vol/f"))).error, 0);
    QCOMPARE(existsRaw(path("vol/.Trash/65534/files/f")), shared);
    QCOMPARE(existsRaw(path("vol/.Trash-65534/files/f")), !shared);
    if (mode == 0)
        QVERIFY(namesIn(path("vol/elsewhere")).isEmpty());
    const auto entries = trashEntries();
    const QByteArray name = nameFor(entries, path("vol/f"));
    QVERIFY(!name.isEmpty());
    QCOMPARE(runTrashJob(restoreFromTrash({ trashUrl(name) })).error, 0);
    QCOMPARE(readRaw(path("vol/f")), QByteArray("f"));
}

void TrashTest::hostileVolume_data()
{
    QTest::addColumn<QByteArray>("plant"); // what another user put where .Trash-65534 goes
    QTest::newRow("folder of another user") << QByteArray("folder");
    QTest::newRow("link to a folder of ours") << QByteArray("link");
    QTest::newRow("file") << QByteArray("file");
}

void TrashTest::hostileVolume()
{
    QFETCH(QByteArray, plant);
    if (!mountVolume())
        QSKIP("needs root and loop devices");
    const QByteArray trashDir = path("vol/.Trash-65534");
    QVERIFY(mkdirRaw(path("vol/mine")));
    giveToNobody(path("vol/mine"));
    if (plant == "folder") {
        QVERIFY(mkdirRaw(trashDir, 0777));
        QCOMPARE(::chmod(trashDir.constData(), 0777), 0);
    } else if (plant == "link") {
        QVERIFY(symlinkRaw("mine", trashDir));
    } else {
        QVERIFY(writeRaw(trashDir, "not a folder"));
    }
    QVERIFY(writeRaw(path("vol/f"), "keep"));
    const Outcome o = runTrashJob(trash(url("vol/f")));
    QCOMPARE(o.error, int(ErrNoTrash));
    QVERIFY(o.args.value(0).contains(QLatin1String("/vol/f")));
    QCOMPARE(readRaw(path("vol/f")), QByteArray("keep")); // nothing moved
    QVERIFY(namesIn(path("vol/mine")).isEmpty()); // nothing written through the link
    if (plant == "folder")
        QVERIFY(namesIn(trashDir).isEmpty());
    QVERIFY(namesIn(homeTrash() + "/files").isEmpty()); // and never copied home
}

void TrashTest::parentSwappedWhileHeld()
{
    // The folder an entry is trashed from is swapped for a decoy holding the same name just
    // before the worker renames (renameat2 held): the entry of the folder it opened goes,
    // the decoy's stays, and the Path recorded is where the trashed one was.
    if (!UnprivilegedWorkers::dropsPrivileges() || !WorkerHold::haveStrace())
        QSKIP("needs root and strace to hold the worker's rename");
    QVERIFY(mkdirRaw(path("w/p")));
    QVERIFY(writeRaw(path("w/p/f"), "original"));
    QVERIFY(mkdirRaw(path("w/decoy")));
    QVERIFY(writeRaw(path("w/decoy/f"), "decoy"));
    giveToNobody(path("w"));
    WorkerEnv held(
        "QVFS_WORKER_PREFIX", WorkerHold::prefix("renameat2", 2000000) + ' ' + UnprivilegedWorkers::prefix());
    TrashJob *job = trash(url("w/p/f"));
    job->setAutoDelete(false);
    bool done = false;
    connect(job, &Job::result, this, [&done] { done = true; });
    const WorkerHold::Held h = WorkerHold::wait({ SYS_renameat2 });
    QVERIFY(h.isValid());
    QCOMPARE(::rename(path("w/p").constData(), path("w/p-moved").constData()), 0);
    QCOMPARE(::rename(path("w/decoy").constData(), path("w/p").constData()), 0);
    QVERIFY(WorkerHold::stillHeld(h)); // the swap came between the look and the rename
    QVERIFY(waitFor([&done] { return done; }, 60000));
    QCOMPARE(job->error(), 0);
    delete job;
    QCOMPARE(readRaw(path("w/p/f")), QByteArray("decoy"));
    QVERIFY(!existsRaw(path("w/p-moved/f")));
    QCOMPARE(readRaw(homeTrash() + "/files/f"), QByteArray("original"));
    QCOMPARE(infoValue(readRaw(homeTrash() + "/info/f.trashinfo"), "Path"), path("w/p/f"));
}

void TrashTest::bigFolder()
{
    // A folder of 10,000 files goes by one rename, whatever it holds.
    QVERIFY(mkdirRaw(path("w/many")));
    giveToNobody(path("w/many")); // a folder is renamed by its owner (its ".." changes)
    for (int i = 0; i < 10000; ++i)
        QVERIFY(writeRaw(path(QByteArray("w/many/f" + QByteArray::number(i))), {}));
    const Outcome o = runTrashJob(trash(url("w/many")));
    QCOMPARE(o.error, 0);
    QCOMPARE(namesIn(homeTrash() + "/files/many").size(), 10000);
    const auto entries = trashEntries();
    QCOMPARE(entries.value("0-many").type(), FileType::Directory);
    QCOMPARE(collect(listDir(trashUrl("0-many"))).count, 10000);
}

void TrashTest::emptyTrash()
{
    // 100,000 entries at home (as another program left them), some trashed here on a second
    // volume, a link pointing outside, and a file beside the trash that must stay.
    const int count = 100000;
    QVERIFY(writeRaw(path("w/first"), "1")); // makes the home trash
    QVERIFY(writeRaw(path("outside"), "outside"));
    QVERIFY(symlinkRaw(path("outside"), path("w/link")));
    QList<QUrl> urls { url("w/first"), url("w/link") };
    const bool volume = mountVolume();
    if (volume) {
        QVERIFY(writeRaw(path("vol/v"), "v"));
        urls.append(url("vol/v"));
    }
    QCOMPARE(runTrashJob(trash(urls)).error, 0);
    const QByteArray info = "[Trash Info]\nPath=/gone\nDeletionDate=2026-01-01T00:00:00\n";
    for (int i = 0; i < count; ++i) {
        const QByteArray name = "e" + QByteArray::number(i);
        QVERIFY(writeRaw(homeTrash() + "/files/" + name, "x"));
        QVERIFY(writeRaw(homeTrash() + "/info/" + name + ".trashinfo", info));
    }
    giveToNobody(homeTrash());
    QCOMPARE(trashEntries().size(), count + int(urls.size()));

    auto job = run(Qvfs::emptyTrash());
    QCOMPARE(job->error(), 0);
    // Empty as soon as the job ends, though the files are deleted afterwards.
    int error = -1;
    QVERIFY(trashEntries(&error).isEmpty());
    QCOMPARE(error, 0);
    QVERIFY(waitFor(
        [&] {
            return namesIn(homeTrash() + "/expunged").isEmpty()
                && (!volume || namesIn(path("vol/.Trash-65534/expunged")).isEmpty());
        },
        60000));
    QVERIFY(namesIn(homeTrash() + "/files").isEmpty());
    QCOMPARE(readRaw(path("outside")), QByteArray("outside"));
}

void TrashTest::interoperability()
{
    if (!UnprivilegedWorkers::dropsPrivileges())
        QSKIP("runs the other programs as nobody: needs root");
    // What GLib and trash-cli trash, Qvfs lists and restores.
    QVERIFY(writeRaw(path("w/by gio.txt"), "gio"));
    QVERIFY(writeRaw(path("w/by-trash-cli é.txt"), "cli"));
    CliRun::Result r = asNobody(
        QStringLiteral("gio"), { QStringLiteral("trash"), QString::fromUtf8(path("w/by gio.txt")) }, path("w"));
    QVERIFY2(r.code == 0, r.err.constData());
    r = asNobody(QStringLiteral("trash-put"), { QString::fromUtf8(path("w/by-trash-cli é.txt")) }, path("w"));
    QVERIFY2(r.code == 0, r.err.constData());
    auto entries = trashEntries();
    const QByteArray byGio = nameFor(entries, path("w/by gio.txt"));
    const QByteArray byCli = nameFor(entries, path("w/by-trash-cli é.txt"));
    QVERIFY(!byGio.isEmpty());
    QVERIFY(!byCli.isEmpty());
    QCOMPARE(runTrashJob(restoreFromTrash({ trashUrl(byGio), trashUrl(byCli) })).error, 0);
    QCOMPARE(readRaw(path("w/by gio.txt")), QByteArray("gio"));
    QCOMPARE(readRaw(path("w/by-trash-cli é.txt")), QByteArray("cli"));

    // What Qvfs trashes, trash-cli lists with its original path and restores.
    QVERIFY(writeRaw(path("w/by qvfs.txt"), "qvfs"));
    QCOMPARE(runTrashJob(trash(url("w/by qvfs.txt"))).error, 0);
    r = asNobody(QStringLiteral("trash-list"), {}, path("w"));
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains(QByteArray(" " + path("w/by qvfs.txt") + "\n")), r.out.constData());
    r = asNobody(QStringLiteral("sh"),
        { QStringLiteral("-c"),
            QStringLiteral("echo 0 | trash-restore %1").arg(QString::fromUtf8(path("w/by qvfs.txt"))) },
        path("w"));
    QVERIFY2(r.code == 0, r.err.constData());
    QCOMPARE(readRaw(path("w/by qvfs.txt")), QByteArray("qvfs"));
    QVERIFY(trashEntries().isEmpty());

    // GLib lists, restores and empties what Qvfs trashes, through GVfs's trash backend (a
    // private gvfsd on a private D-Bus session: scripts/private-gvfs.sh, run from standard
    // input since nobody may not reach the checkout).
    QVERIFY2(existsRaw("/var/cache/qvfs-tests/gvfs/root/usr/libexec/gvfsd-trash"),
        "GVfs's trash backend is not unpacked: run scripts/setup.sh --test");
    bool ok = false;
    const QByteArray withGvfs = readRaw(QVFS_SOURCE_DIR "/scripts/private-gvfs.sh", &ok);
    QVERIFY(ok);
    auto gio = [&](const QString &command) {
        return asNobody(QStringLiteral("bash"),
            { QStringLiteral("-s"), QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"), command },
            path("w"), withGvfs);
    };
    QVERIFY(writeRaw(path("w/for gio.txt"), "for gio"));
    QVERIFY(mkdirRaw(path("w/folder for gio")));
    QVERIFY(writeRaw(path("w/folder for gio/in"), "in"));
    giveToNobody(path("w/folder for gio"));
    QCOMPARE(runTrashJob(trash({ url("w/for gio.txt"), url("w/folder for gio") })).error, 0);
    r = gio(QStringLiteral("gio trash --list && gio trash --restore 'trash:///for%20gio.txt'"));
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY2(r.out.contains(QByteArray("trash:///for%20gio.txt\t" + path("w/for gio.txt") + '\n')), r.out.constData());
    QVERIFY2(r.out.contains(QByteArray("trash:///folder%20for%20gio\t" + path("w/folder for gio") + '\n')),
        r.out.constData());
    QCOMPARE(readRaw(path("w/for gio.txt")), QByteArray("for gio"));
    QCOMPARE(trashEntries().keys(), QList<QByteArray> { "0-folder for gio" });
    r = gio(QStringLiteral("gio trash --empty"));
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY(waitFor([&] { return trashEntries().isEmpty() && namesIn(homeTrash() + "/files").isEmpty(); }));
}

void TrashTest::watching()
{
    DirLister lister;
    ListerTracker t(&lister);
    QVERIFY(lister.open(TrashRoot));
    QVERIFY(waitFor([&] { return t.completed == 1; }));
    QCOMPARE(lister.watchMode(TrashRoot), WatchMode::Native);
    // Trashed by this application, by another program, restored, emptied.
    QVERIFY(writeRaw(path("w/one"), "1"));
    QCOMPARE(runTrashJob(trash(url("w/one"))).error, 0);
    QVERIFY(waitFor([&] { return t.names(TrashRoot).contains("0-one"); }));
    QCOMPARE(t.entry(TrashRoot, "0-one").bytes(OriginalPath), path("w/one"));
    if (UnprivilegedWorkers::dropsPrivileges()) {
        QVERIFY(writeRaw(path("w/two"), "2"));
        const CliRun::Result r
            = asNobody(QStringLiteral("gio"), { QStringLiteral("trash"), QString::fromUtf8(path("w/two")) }, path("w"));
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(waitFor([&] { return t.names(TrashRoot).contains("0-two"); }));
    }
    QCOMPARE(runTrashJob(restoreFromTrash({ trashUrl("0-one") })).error, 0);
    QVERIFY(waitFor([&] { return !t.names(TrashRoot).contains("0-one"); }));
    QCOMPARE(run(Qvfs::emptyTrash())->error(), 0);
    QVERIFY(waitFor([&] { return t.names(TrashRoot).isEmpty(); }));
    QVERIFY2(t.errors.isEmpty(), qPrintable(t.errors.join(QLatin1Char('\n'))));
}

void TrashTest::commandLine()
{
    QVERIFY(writeRaw(path("w/c.txt"), "c"));
    QVERIFY(writeRaw(path("w/d.txt"), "d"));
    const QString cwd = QString::fromLocal8Bit(path("w"));
    const QString qvfs = CliRun::qvfsBinary();
    CliRun::Result r = CliRun::run(qvfs, { QStringLiteral("trash"), QStringLiteral("c.txt") }, cwd);
    QVERIFY2(r.code == 0, r.err.constData());
    r = CliRun::run(qvfs, { QStringLiteral("rm"), QStringLiteral("--trash"), QStringLiteral("d.txt") }, cwd);
    QVERIFY2(r.code == 0, r.err.constData());
    r = CliRun::run(qvfs, { QStringLiteral("trash"), QStringLiteral("--list") }, cwd);
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, QByteArray("0-c.txt\n0-d.txt\n"));
    r = CliRun::run(qvfs, { QStringLiteral("trash"), QStringLiteral("--list"), QStringLiteral("--json") }, cwd);
    QVERIFY(r.out.contains(QByteArray("\"original_path\":\"" + path("w/c.txt") + '"')));
    QVERIFY(r.out.contains("\"deletion_time\":"));
    // A restore onto an existing file fails with a message, then --rename restores beside it.
    QVERIFY(writeRaw(path("w/c.txt"), "new"));
    r = CliRun::run(qvfs, { QStringLiteral("trash"), QStringLiteral("--restore"), QStringLiteral("0-c.txt") }, cwd);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("already exists"), r.err.constData());
    r = CliRun::run(qvfs,
        { QStringLiteral("trash"), QStringLiteral("--restore"), QStringLiteral("--rename"), QStringLiteral("0-c.txt") },
        cwd);
    QVERIFY2(r.code == 0, r.err.constData());
    QCOMPARE(namesIn(path("w")).size(), 2);
    r = CliRun::run(qvfs, { QStringLiteral("trash"), QStringLiteral("--empty") }, cwd);
    QVERIFY2(r.code == 0, r.err.constData());
    r = CliRun::run(qvfs, { QStringLiteral("ls"), QStringLiteral("trash:/") }, cwd); // as KIO writes it
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, QByteArray());
    r = CliRun::run(qvfs, { QStringLiteral("trash"), QStringLiteral("--list"), QStringLiteral("--empty") }, cwd);
    QCOMPARE(r.code, 2);
}

QTEST_GUILESS_MAIN(TrashTest)
#include "trashtest.moc"
