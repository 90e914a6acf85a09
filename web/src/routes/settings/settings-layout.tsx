import { Link, Outlet } from '@tanstack/react-router';
import { HOSTS } from '../../lib/repository';

const tabs = [
  { to: '/settings/profile', label: 'Profile' },
  { to: '/settings/sessions', label: 'Sessions' },
  { to: '/settings/tokens', label: 'API tokens' },
  { to: '/settings/providers', label: 'Providers' },
  { to: '/settings/review', label: 'Review' },
  // One tab per code host, from the web app's host list.
  ...Object.values(HOSTS).map((host) => ({ to: host.settings, label: host.name })),
] as const;

export function SettingsLayout() {
  return (
    <div className="settings-layout">
      <nav aria-label="Settings" className="settings-nav">
        <ul>
          {tabs.map((tab) => (
            <li key={tab.to}>
              <Link to={tab.to} activeProps={{ className: 'active', 'aria-current': 'page' }}>
                {tab.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <div className="settings-content">
        <Outlet />
      </div>
    </div>
  );
}
