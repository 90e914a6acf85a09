import { SettingsTabs } from '../../components/settings-tabs';
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
  return <SettingsTabs label="Settings" tabs={tabs} />;
}
