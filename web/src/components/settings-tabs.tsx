import { Link, Outlet } from '@tanstack/react-router';
import type { ComponentProps } from 'react';

export interface SettingsTab {
  to: ComponentProps<typeof Link>['to'];
  label: string;
}

/** Settings as tabs beside their content: the personal settings and an organization's alike. */
export function SettingsTabs({ label, tabs, params }: { label: string; tabs: readonly SettingsTab[]; params?: Record<string, string> }) {
  return (
    <div className="settings-layout">
      <nav aria-label={label} className="settings-nav">
        <ul>
          {tabs.map((tab) => (
            <li key={tab.to}>
              <Link to={tab.to} params={params as never} activeProps={{ className: 'active', 'aria-current': 'page' }}>
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
