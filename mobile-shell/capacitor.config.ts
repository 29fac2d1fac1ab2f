import type { CapacitorConfig } from '@capacitor/cli';

/**
 * The Android / iOS app around the built web page (`npm run build -w @hitl/web` → `web/dist`).
 * The page is bundled into the app; it connects to the node whose device link the person pastes on
 * first start (see README.md).
 */
const config: CapacitorConfig = {
  appId: 'dev.hitl.inquiry',
  appName: 'HITL',
  webDir: '../web/dist',
  server: {
    // The page is served as https://localhost inside the app: a secure context, and a loopback
    // Origin that nodes accept without HITL_ALLOWED_ORIGINS (iOS uses capacitor://localhost).
    androidScheme: 'https',
  },
  plugins: {
    LocalNotifications: {
      // Android tints the status-bar icon with this colour (add a monochrome icon: see README.md).
      iconColor: '#2457c5',
    },
  },
};

export default config;
