// SPDX-License-Identifier: LGPL-2.1-or-later
#include "browserwindow.h"

#include <Qvfs/CopyJob>
#include <Qvfs/DeleteJob>
#include <Qvfs/DirLister>
#include <Qvfs/DirModel>
#include <Qvfs/SimpleJob>
#include <Qvfs/Url>
#include <Qvfs/UrlIdentity>

#include <QAction>
#include <QApplication>
#include <QHeaderView>
#include <QIdentityProxyModel>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QTreeView>

namespace
{
/*! Icons for the model's icon names (the model itself knows no widgets, no QIcon). */
class IconProxy : public QIdentityProxyModel
{
public:
    using QIdentityProxyModel::QIdentityProxyModel;
    QVariant data(const QModelIndex &index, int role) const override
    {
        if (role == Qt::DecorationRole && index.column() == 0) {
            const QString name = QIdentityProxyModel::data(index, Qvfs::DirModel::IconNameRole).toString();
            QIcon icon = QIcon::fromTheme(name);
            if (icon.isNull()) {
                const bool dir = QIdentityProxyModel::data(index, Qvfs::DirModel::IsDirRole).toBool();
                icon = QApplication::style()->standardIcon(dir ? QStyle::SP_DirIcon : QStyle::SP_FileIcon);
            }
            return icon;
        }
        return QIdentityProxyModel::data(index, role);
    }
};
} // namespace

BrowserWindow::BrowserWindow(const QUrl &start, QWidget *parent)
    : QMainWindow(parent)
    , m_tree(new Qvfs::DirModel(this))
    , m_files(new Qvfs::DirModel(this))
    , m_treeView(new QTreeView)
    , m_filesView(new QTreeView)
    , m_location(new QLineEdit)
    , m_status(new QLabel)
    , m_progress(new QProgressBar)
{
    // Left: the folders under "/" as a tree, each expanded on demand (fetchMore).
    m_tree->setTreeMode(true);
    m_tree->dirLister()->setDirsOnly(true);
    m_tree->setUrl(QUrl(QStringLiteral("file:///")));
    auto *treeIcons = new IconProxy(this);
    treeIcons->setSourceModel(m_tree);
    m_treeView->setModel(treeIcons);
    for (int c = 1; c < Qvfs::DirModel::ColumnCount; ++c)
        m_treeView->hideColumn(c);
    m_treeView->setHeaderHidden(true);
    m_treeView->setUniformRowHeights(true);
    // A collapsed branch is forgotten: no rows kept, no watch left.
    connect(m_treeView, &QTreeView::collapsed, this,
        [this, treeIcons](const QModelIndex &i) { m_tree->closeFolder(treeIcons->mapToSource(i)); });
    connect(m_treeView, &QTreeView::activated, this,
        [this, treeIcons](const QModelIndex &i) { openFolder(m_tree->urlForIndex(treeIcons->mapToSource(i))); });

    // Right: the current folder, sorted by the column clicked (the model sorts itself).
    auto *fileIcons = new IconProxy(this);
    fileIcons->setSourceModel(m_files);
    m_filesView->setModel(fileIcons);
    m_filesView->setRootIsDecorated(false);
    m_filesView->setUniformRowHeights(true);
    m_filesView->setSortingEnabled(true);
    m_filesView->sortByColumn(Qvfs::DirModel::NameColumn, Qt::AscendingOrder);
    m_filesView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_filesView->setEditTriggers(QAbstractItemView::EditKeyPressed); // F2: a rename job
    m_filesView->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_filesView->header()->setStretchLastSection(false);
    connect(m_filesView, &QTreeView::activated, this, [this, fileIcons](const QModelIndex &i) {
        const QModelIndex s = fileIcons->mapToSource(i);
        if (s.data(Qvfs::DirModel::IsDirRole).toBool())
            openFolder(m_files->urlForIndex(s));
    });
    connect(m_files, &Qvfs::DirModel::folderGone, this,
        [this](const QUrl &url) { m_status->setText(tr("%1 was deleted").arg(Qvfs::Url::displayString(url))); });
    connect(m_files, &Qvfs::DirModel::urlChanged, this,
        [this](const QUrl &url) { m_location->setText(Qvfs::Url::displayString(url)); });
    connect(m_files, &Qvfs::DirModel::failed, this,
        [this](const QUrl &, int, const QString &text) { m_status->setText(text); });
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

    auto *split = new QSplitter;
    split->addWidget(m_treeView);
    split->addWidget(m_filesView);
    split->setStretchFactor(1, 3);
    setCentralWidget(split);

    QToolBar *bar = addToolBar(tr("Actions"));
    const auto action = [this, bar](const QString &text, QKeySequence key, auto slot) {
        QAction *a = bar->addAction(text, this, slot);
        a->setShortcut(key);
        return a;
    };
    action(tr("Up"), QKeySequence(Qt::ALT | Qt::Key_Up), &BrowserWindow::goUp);
    action(tr("Copy"), QKeySequence::Copy, &BrowserWindow::copySelection);
    action(tr("Paste"), QKeySequence::Paste, &BrowserWindow::paste);
    action(tr("Delete"), QKeySequence::Delete, &BrowserWindow::deleteSelection);
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

    m_progress->setMaximumWidth(200);
    m_progress->hide();
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_progress);
    openFolder(start);
    resize(1000, 650);
}

void BrowserWindow::openFolder(const QUrl &url)
{
    m_files->setUrl(url);
    m_location->setText(Qvfs::Url::displayString(url));
    setWindowTitle(tr("%1 — Qvfs browser").arg(Qvfs::Url::displayString(url)));
}

QList<QUrl> BrowserWindow::selectedUrls() const
{
    QList<QUrl> urls;
    const auto *proxy = static_cast<const QIdentityProxyModel *>(m_filesView->model());
    const QModelIndexList rows = m_filesView->selectionModel()->selectedRows();
    for (const QModelIndex &i : rows)
        urls.append(m_files->urlForIndex(proxy->mapToSource(i)));
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

void BrowserWindow::deleteSelection()
{
    const QList<QUrl> urls = selectedUrls();
    if (urls.isEmpty())
        return;
    if (QMessageBox::question(this, tr("Delete"), tr("Delete %n item(s) for good?", nullptr, int(urls.size())))
        != QMessageBox::Yes)
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
    openFolder(Qvfs::Url::parent(m_files->url()));
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
