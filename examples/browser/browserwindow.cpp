// SPDX-License-Identifier: LGPL-2.1-or-later
#include "browserwindow.h"
#include "displayproxy.h"

#include <Qvfs/CopyJob>
#include <Qvfs/DeleteJob>
#include <Qvfs/DirLister>
#include <Qvfs/DirModel>
#include <Qvfs/Error>
#include <Qvfs/SimpleJob>
#include <Qvfs/TrashJob>
#include <Qvfs/Url>
#include <Qvfs/UrlIdentity>

#include <QAction>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>

#include <memory>

namespace
{
// A folder listed within BusyDelayMs shows no busy indicator (it would only flicker).
constexpr int BusyDelayMs = 300;
// The longest the rows of a loading folder wait hidden (KDE's Dolphin waits as long).
constexpr int HoldMs = 2000;
} // namespace

BrowserWindow::BrowserWindow(const QUrl &start, QWidget *parent)
    : QMainWindow(parent)
    , m_tree(new Qvfs::DirModel(this))
    , m_files(new Qvfs::DirModel(this))
    , m_treeDisplay(new DisplayProxy(this))
    , m_filesDisplay(new DisplayProxy(this))
    , m_treeView(new QTreeView)
    , m_filesView(new QTreeView)
    , m_location(new QLineEdit)
    , m_status(new QLabel)
    , m_count(new QLabel)
    , m_busy(new QProgressBar)
    , m_progress(new QProgressBar)
    , m_busyDelay(new QTimer(this))
    , m_hold(new QTimer(this))
{
    setUpTree();
    setUpFiles();
    auto *split = new QSplitter;
    split->addWidget(m_treeView);
    split->addWidget(m_filesView);
    split->setStretchFactor(1, 3);
    split->setSizes({ 260, 740 });
    setCentralWidget(split);
    setUpActions();
    setUpStatusBar();
    openFolder(start);
    resize(1000, 650);
}

void BrowserWindow::setUpTree()
{
    // The folders under "/" as a tree, each expanded on demand (fetchMore).
    m_tree->setTreeMode(true);
    m_tree->dirLister()->setDirsOnly(true);
    m_tree->setUrl(QUrl(QStringLiteral("file:///")));
    m_treeDisplay->setSourceModel(m_tree);
    m_treeView->setModel(m_treeDisplay);
    for (int c = 1; c < Qvfs::DirModel::ColumnCount; ++c)
        m_treeView->hideColumn(c);
    m_treeView->setHeaderHidden(true);
    m_treeView->setUniformRowHeights(true);
    m_treeView->setEditTriggers(QAbstractItemView::NoEditTriggers); // a double click opens
    // Deep folders scroll sideways rather than lose their names.
    m_treeView->header()->setStretchLastSection(false);
    m_treeView->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    // A collapsed branch is forgotten: no rows kept, no watch left.
    connect(m_treeView, &QTreeView::collapsed, this,
        [this](const QModelIndex &i) { m_tree->closeFolder(m_treeDisplay->mapToSource(i)); });
    connect(m_treeView, &QTreeView::activated, this,
        [this](const QModelIndex &i) { openFolder(m_tree->urlForIndex(m_treeDisplay->mapToSource(i))); });
    connect(m_tree, &Qvfs::DirModel::expand, this, &BrowserWindow::expandInTree);
}

void BrowserWindow::setUpFiles()
{
    // The current folder, sorted by the column clicked (the model sorts itself).
    m_filesDisplay->setSourceModel(m_files);
    m_filesView->setModel(m_filesDisplay);
    m_filesView->setRootIsDecorated(false);
    m_filesView->setUniformRowHeights(true);
    m_filesView->setSortingEnabled(true);
    m_filesView->sortByColumn(Qvfs::DirModel::NameColumn, Qt::AscendingOrder);
    m_filesView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_filesView->setEditTriggers(QAbstractItemView::EditKeyPressed); // F2: a rename job
    m_filesView->setTextElideMode(Qt::ElideMiddle); // a long name keeps its extension
    // While its viewport is hidden (startLoading()) the view shows an empty page.
    m_filesView->setBackgroundRole(QPalette::Base);
    m_filesView->setAutoFillBackground(true);

    // Size, date and type as wide as what they show; the name takes the rest. Only the
    // rows in sight are measured: the others are not asked for (nor their folders counted).
    QHeaderView *header = m_filesView->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(Qvfs::DirModel::NameColumn, QHeaderView::Stretch);
    header->setResizeContentsPrecision(0);

    connect(m_filesView, &QTreeView::activated, this, [this](const QModelIndex &i) {
        const QModelIndex s = m_filesDisplay->mapToSource(i);
        if (s.data(Qvfs::DirModel::IsDirRole).toBool())
            openFolder(m_files->urlForIndex(s));
    });
    // The model's own jobs: renames here (F2); drops are not enabled in this example.
    connect(m_files, &Qvfs::DirModel::jobStarted, this, [this](Qvfs::Job *job) { track(job, tr("Renaming")); });
    connect(m_files, &Qvfs::DirModel::loaded, this, &BrowserWindow::finishLoading);
    connect(m_files, &Qvfs::DirModel::folderGone, this, [this](const QUrl &url) {
        finishLoading(url);
        m_status->setText(tr("%1 was deleted").arg(Qvfs::Url::displayString(url)));
    });
    connect(m_files, &Qvfs::DirModel::urlChanged, this, &BrowserWindow::showLocation);
    connect(m_files, &Qvfs::DirModel::failed, this, [this](const QUrl &url, int, const QString &text) {
        finishLoading(url);
        m_status->setText(text);
    });
    connect(m_files->dirLister(), &Qvfs::DirLister::watchModeChanged, this, [this](const QUrl &, Qvfs::WatchMode m) {
        switch (m) {
        case Qvfs::WatchMode::Native:
            m_status->setText(tr("Watching"));
            break;
        case Qvfs::WatchMode::Polling:
        case Qvfs::WatchMode::PollingAtLimit:
            m_status->setText(tr("Polling (no watch available)"));
            break;
        case Qvfs::WatchMode::None:
            m_status->setText(tr("Following this application's own changes"));
            break;
        }
    });
    connect(m_files, &QAbstractItemModel::rowsInserted, this, &BrowserWindow::updateItemCount);
    connect(m_files, &QAbstractItemModel::rowsRemoved, this, &BrowserWindow::updateItemCount);
    connect(m_files, &QAbstractItemModel::layoutChanged, this, &BrowserWindow::updateItemCount); // scattered merges
    connect(m_files, &QAbstractItemModel::modelReset, this, &BrowserWindow::updateItemCount);
}

void BrowserWindow::setUpActions()
{
    QToolBar *bar = addToolBar(tr("Actions"));
    const auto action = [this, bar](const QString &text, QKeySequence key, auto slot) {
        QAction *a = bar->addAction(text, this, slot);
        a->setShortcut(key);
        return a;
    };
    action(tr("Up"), QKeySequence(Qt::ALT | Qt::Key_Up), &BrowserWindow::goUp);
    action(tr("Copy"), QKeySequence::Copy, &BrowserWindow::copySelection);
    action(tr("Paste"), QKeySequence::Paste, &BrowserWindow::paste);
    m_trash = action(tr("Move to Trash"), QKeySequence::Delete, &BrowserWindow::trashSelection);
    action(tr("Delete"), QKeySequence(Qt::SHIFT | Qt::Key_Delete), &BrowserWindow::deleteSelection);
    action(tr("Rename"), QKeySequence(Qt::Key_F2), &BrowserWindow::renameCurrent);
    action(tr("New Folder"), QKeySequence::New, &BrowserWindow::newFolder);
    QAction *hidden = bar->addAction(tr("Hidden Files"));
    hidden->setCheckable(true);
    connect(hidden, &QAction::toggled, this, [this](bool on) { m_files->dirLister()->setShowHidden(on); });
    bar->addWidget(m_location);
    connect(m_location, &QLineEdit::returnPressed, this, [this] {
        // Typed text is text: a local path or a URL.
        const QUrl url = Qvfs::Url::fromUserInput(m_location->text().toUtf8(), QByteArrayLiteral("/"));
        if (url.isValid())
            openFolder(url);
    });
}

void BrowserWindow::setUpStatusBar()
{
    m_busy->setRange(0, 0); // no end known: a busy indicator
    m_busy->setMaximumWidth(120);
    m_busy->setTextVisible(false);
    m_busy->hide();
    m_progress->setMaximumWidth(200);
    m_progress->hide();
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_count);
    statusBar()->addPermanentWidget(m_busy);
    statusBar()->addPermanentWidget(m_progress);
    m_busyDelay->setSingleShot(true);
    m_busyDelay->setInterval(BusyDelayMs);
    connect(m_busyDelay, &QTimer::timeout, this, &BrowserWindow::showBusy);
    m_hold->setSingleShot(true);
    m_hold->setInterval(HoldMs);
    connect(m_hold, &QTimer::timeout, this, &BrowserWindow::revealRows);
}

void BrowserWindow::openFolder(const QUrl &url)
{
    m_cameFrom.clear();
    m_files->setUrl(url);
    showLocation(url);
    startLoading();
}

void BrowserWindow::showLocation(const QUrl &url)
{
    m_location->setText(Qvfs::Url::displayString(url));
    setWindowTitle(tr("%1 — Qvfs browser").arg(Qvfs::Url::displayString(url)));
    m_trash->setEnabled(Qvfs::Url::isLocalFile(url)); // the trash is for local files
    // The tree opens down to the folder; expandInTree() selects it when its row is there.
    const QUrl treeRoot = m_tree->url();
    if (Qvfs::Url::isAncestorOrSame(treeRoot, url) && Qvfs::Url::normalized(url) != Qvfs::Url::normalized(treeRoot))
        m_tree->expandToUrl(url);
    else
        m_treeView->setCurrentIndex(QModelIndex());
}

void BrowserWindow::expandInTree(const QModelIndex &index)
{
    const QModelIndex shown = m_treeDisplay->mapFromSource(index);
    m_treeView->expand(shown);
    if (Qvfs::Url::normalized(m_tree->urlForIndex(index)) == Qvfs::Url::normalized(m_files->url())) {
        m_treeView->setCurrentIndex(shown);
        m_treeView->scrollTo(shown);
    }
}

void BrowserWindow::startLoading()
{
    m_filesView->viewport()->hide();
    m_busy->hide();
    m_busyDelay->start();
    m_hold->start();
    updateItemCount();
}

void BrowserWindow::showBusy()
{
    if (!m_files->isLoaded())
        m_busy->show();
}

void BrowserWindow::revealRows()
{
    m_hold->stop();
    m_filesView->viewport()->show();
    selectCameFrom();
}

void BrowserWindow::finishLoading(const QUrl &url)
{
    if (Qvfs::Url::normalized(url) != Qvfs::Url::normalized(m_files->url()))
        return;
    m_busyDelay->stop();
    m_busy->hide();
    revealRows();
    m_cameFrom.clear(); // (its row is selected now, or it is not there)
}

void BrowserWindow::updateItemCount()
{
    m_count->setText(tr("%Ln item(s)", nullptr, m_files->rowCount()));
}

void BrowserWindow::selectCameFrom()
{
    if (m_cameFrom.isEmpty())
        return;
    const QModelIndex row = m_filesDisplay->mapFromSource(m_files->indexForUrl(m_cameFrom));
    if (!row.isValid())
        return; // not listed yet: finishLoading() asks again
    if (m_filesView->currentIndex() != row)
        m_filesView->selectionModel()->setCurrentIndex(
            row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_filesView->scrollTo(row, QAbstractItemView::PositionAtCenter);
}

QList<QUrl> BrowserWindow::selectedUrls() const
{
    QList<QUrl> urls;
    const QModelIndexList rows = m_filesView->selectionModel()->selectedRows();
    for (const QModelIndex &i : rows)
        urls.append(m_files->urlForIndex(m_filesDisplay->mapToSource(i)));
    return urls;
}

void BrowserWindow::copySelection()
{
    m_clipboard = selectedUrls();
    m_status->setText(tr("%n item(s) copied", nullptr, int(m_clipboard.size())));
}

void BrowserWindow::paste()
{
    if (m_clipboard.isEmpty())
        return;
    Qvfs::CopyJob *job = Qvfs::copy(m_clipboard, m_files->url());
    job->setConflictPolicy(Qvfs::ConflictPolicy::Rename); // "name (1).ext": no question to ask
    track(job, tr("Copying"));
}

void BrowserWindow::trashSelection()
{
    const QList<QUrl> urls = selectedUrls();
    if (urls.isEmpty())
        return;
    Qvfs::TrashJob *job = Qvfs::trash(urls);
    // What has no trash on its volume (ErrNoTrash) may still be deleted, if the user says so.
    auto noTrash = std::make_shared<QList<QUrl>>();
    connect(job, &Qvfs::Job::leftOut, this, [noTrash](Qvfs::Job *, const QUrl &url, int error) {
        if (error == Qvfs::ErrNoTrash)
            noTrash->append(url);
    });
    connect(job, &Qvfs::Job::result, this, [this, urls, noTrash](Qvfs::Job *j) {
        if (j->error() == Qvfs::ErrNoTrash && urls.size() == 1)
            *noTrash = urls; // one entry: its error is the job's
        if (noTrash->isEmpty())
            return;
        const QString question = tr(
            "%n item(s) cannot be moved to the trash on their volume. Delete for good?", nullptr, int(noTrash->size()));
        // (Asked from the event loop, not from within the job's signal.)
        QTimer::singleShot(0, this, [this, noTrash, question] { deleteUrls(*noTrash, question); });
    });
    track(job, tr("Moving to the trash"));
}

void BrowserWindow::deleteSelection()
{
    const QList<QUrl> urls = selectedUrls();
    deleteUrls(urls, tr("Delete %n item(s) for good?", nullptr, int(urls.size())));
}

void BrowserWindow::deleteUrls(const QList<QUrl> &urls, const QString &question)
{
    if (urls.isEmpty() || QMessageBox::question(this, tr("Delete"), question) != QMessageBox::Yes)
        return;
    track(Qvfs::del(urls), tr("Deleting"));
}

void BrowserWindow::renameCurrent()
{
    const QModelIndex current = m_filesView->currentIndex();
    if (current.isValid())
        m_filesView->edit(current.siblingAtColumn(0)); // DirModel::setData starts the rename job
}

void BrowserWindow::newFolder()
{
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("New Folder"), tr("Name:"), QLineEdit::Normal, QString(), &ok);
    if (!ok || name.isEmpty())
        return;
    const QUrl url = Qvfs::Url::child(m_files->url(), name.toUtf8());
    if (!url.isValid()) {
        m_status->setText(tr("Not a valid name: %1").arg(name));
        return;
    }
    track(Qvfs::mkdir(url), tr("Creating a folder"));
}

void BrowserWindow::goUp()
{
    const QUrl from = m_files->url();
    const QUrl up = Qvfs::Url::parent(from);
    if (Qvfs::Url::normalized(up) == Qvfs::Url::normalized(from))
        return; // the root
    openFolder(up);
    m_cameFrom = from;
}

void BrowserWindow::track(Qvfs::Job *job, const QString &what)
{
    ++m_running;
    m_progress->show();
    m_progress->setRange(0, 100);
    m_status->setText(what);
    connect(job, &Qvfs::Job::percentChanged, this,
        [this](Qvfs::Job *, unsigned long percent) { m_progress->setValue(int(percent)); });
    connect(job, &Qvfs::Job::result, this, [this, what](Qvfs::Job *j) {
        if (--m_running == 0)
            m_progress->hide();
        m_status->setText(j->error() ? j->errorString() : tr("%1: done").arg(what));
    });
}
